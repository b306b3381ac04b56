//! `sys::release_free_memory` in a process of its own (one test in this binary):
//! what the store's writer calls once it has caught up after a walk. The resident
//! set size it reads is the whole process's, so no other test may allocate beside it.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use lean_ctx_daemon::sys::{release_free_memory, rss_bytes};

const MIB: u64 = 1 << 20;

/// Freed small allocations stay resident in glibc's arena (they are below its `mmap`
/// threshold, and one allocation made after them keeps the arena's top from shrinking
/// on `free`) until the allocator is asked to give them back: the shape of a walk's
/// parses, freed once the writer has written them, under the symbol cache's live ones.
#[test]
fn freed_memory_goes_back_to_the_system() {
    let blocks: Vec<Box<[u8]>> = (0..96 * 1024)
        .map(|i| vec![i as u8; 1024].into_boxed_slice())
        .collect();
    let pin = std::hint::black_box(vec![1u8; 1024]);
    let held = rss_bytes().unwrap();
    drop(std::hint::black_box(blocks));
    let freed = rss_bytes().unwrap();
    release_free_memory();
    let trimmed = rss_bytes().unwrap();
    assert!(
        freed > trimmed + 64 * MIB,
        "96 MiB freed: RSS {} MiB with them, {} MiB after free, {} MiB after the trim",
        held / MIB,
        freed / MIB,
        trimmed / MIB
    );
    drop(pin);
}
