//! Gain accounting (docs/ide-wire.md, `stats.json`): for every call, the tokens of the
//! raw material an agent would otherwise have read against the tokens lean-ctx
//! returned, counted with a real tokenizer (tiktoken's `o200k_base`) over the canonical
//! answer text (`lean_ctx_shared::render`), kept in `stats.json` in the data dir (the
//! file the JetBrains plugin's status bar reads).
//!
//! Baselines are deliberately conservative (inflated savings are the upstream tool's
//! top credibility complaint):
//! - one file's symbols (`symbols_overview`, `outline FILE`): the file itself, which
//!   an agent would read to find them;
//! - a symbol edit: the old text of the target plus the new text, what a
//!   string-replace edit tool is sent; nothing for the read that usually precedes it;
//! - navigation (references, definition, ...): the lines a grep would print for the
//!   same hits, about what we return;
//! - an applied refactoring: one string-replace edit per usage;
//! - a read (`read`): each file answered in full, as a window, a symbol, its
//!   signatures or its map against the whole file, which an agent's own read tool
//!   would have returned; a re-read answered by "unchanged" or by a diff against the
//!   answer it would otherwise have sent again (never the whole file);
//! - everything else (directory outlines, search, previews, diagnostics, type
//!   hierarchies, reformat, errors): no claim, the baseline is the answer itself.
//!
//! Counting happens off the request path, after the answer is sent, on a thread of its
//! own at nice 10 (`sys::lower_priority`; the blocking pool only if that thread cannot
//! start): on the blocking pool the first count, the tokenizer's load with it, took a
//! core from the shim just answered. The tokenizer is loaded for a burst of calls and
//! released after `TOKENIZER_IDLE` (60 s) without one. `stats.json` is written
//! atomically, at most once a second (a record that comes sooner is written by one
//! trailing write a second later, so readers such as `lean-ctx gain` never lag the
//! daemon by more), and at shutdown.

use std::{
    io::Read,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant, SystemTime},
};

use lean_ctx_shared::stats::Stats;

use crate::{index::ids::FileId, jail::Jailed, tokens::O200k};

/// Raw material an answer stands in for.
#[derive(Debug)]
pub enum Baseline {
    /// A whole file (tokens cached by file identity), read through the jail's
    /// descriptors like every other read of a file an agent named.
    File(Jailed),
    /// A text an agent would have sent or received.
    Text(String),
    /// No saving claimed.
    NoClaim,
    /// Each of several (a read of several files).
    Sum(Vec<Baseline>),
}

/// One call's record.
#[derive(Debug)]
pub struct Accounted {
    pub action: &'static str,
    /// The file the call was about, for the heatmap.
    pub file: Option<PathBuf>,
    pub baseline: Baseline,
    pub output: String,
}

#[derive(Debug)]
pub struct Gain {
    path: PathBuf,
    /// The totals as this daemon sees them: the file at its last write plus what it
    /// counted since.
    stats: Mutex<Stats>,
    /// What this daemon counted since its last write: what a write adds to the file.
    unflushed: Mutex<Stats>,
    last_write: Mutex<Option<Instant>>,
    file_tokens: moka::sync::Cache<FileId, u64>,
    /// Token counts of answers by their BLAKE3: agents ask for the same outline
    /// again and again, and o200k tokenizing costs about a millisecond per 30 KB.
    text_tokens: moka::sync::Cache<[u8; 32], u64>,
    /// A task that drops the tokenizer once idle is running.
    releasing: std::sync::atomic::AtomicBool,
    /// Records handed to the blocking pool and not yet counted.
    pending: std::sync::atomic::AtomicUsize,
    /// A trailing write of `stats.json` is scheduled.
    trailing: std::sync::atomic::AtomicBool,
    tokenizer: Tokenizer,
    /// The accounting thread's queue ([`Gain::on_accountant`]); the thread ends when
    /// this is dropped.
    accountant: std::sync::OnceLock<std::sync::mpsc::Sender<Job>>,
}

type Job = Box<dyn FnOnce() + Send>;

const WRITE_EVERY: Duration = Duration::from_secs(1);

/// Bytes of a file tokenized at a time for a call's baseline.
const COUNT_PIECE: usize = 1 << 20;

/// The tokenizer (its pattern compiled: about 3 ms and 3 MiB; its tables are static
/// in the binary) is loaded on the first record of a burst and dropped after this
/// long without one, so an idle daemon stays small.
const TOKENIZER_IDLE: Duration = Duration::from_secs(60);

/// `o200k_base`, loaded on demand and released when idle.
#[derive(Default)]
struct Tokenizer {
    loaded: Mutex<Option<(Arc<O200k>, Instant)>>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokenizer")
    }
}

impl Tokenizer {
    fn get(&self) -> Arc<O200k> {
        let mut loaded = self.loaded.lock().unwrap();
        let bpe = match loaded.take() {
            Some((bpe, _)) => bpe,
            None => Arc::new(O200k::load()),
        };
        *loaded = Some((bpe.clone(), Instant::now()));
        bpe
    }

    /// Drops the tables if unused for [`TOKENIZER_IDLE`]: `None` once they are gone,
    /// else how long until they would be idle.
    fn release_if_idle(&self) -> Option<Duration> {
        let mut loaded = self.loaded.lock().unwrap();
        let used = loaded.as_ref()?.1;
        let left = TOKENIZER_IDLE.saturating_sub(used.elapsed());
        if left.is_zero() {
            *loaded = None;
            return None;
        }
        Some(left)
    }

    fn count(&self, text: &str) -> u64 {
        self.get().count(text)
    }
}

impl Gain {
    /// Continues the totals in `data_dir/stats.json`, if any.
    pub fn load(data_dir: &Path) -> Gain {
        let path = data_dir.join(lean_ctx_shared::stats::FILE_NAME);
        let stats = Stats::read(data_dir);
        Gain {
            path,
            stats: Mutex::new(stats),
            unflushed: Mutex::new(Stats::default()),
            last_write: Mutex::new(None),
            file_tokens: moka::sync::Cache::new(10_000),
            text_tokens: moka::sync::Cache::new(10_000),
            releasing: std::sync::atomic::AtomicBool::new(false),
            pending: std::sync::atomic::AtomicUsize::new(0),
            trailing: std::sync::atomic::AtomicBool::new(false),
            tokenizer: Tokenizer::default(),
            accountant: std::sync::OnceLock::new(),
        }
    }

    /// Accounts `call` in the background.
    pub fn record(self: &Arc<Self>, call: Accounted) {
        self.in_background(call, false);
    }

    /// Accounts a failed call: it counts, and claims nothing.
    pub fn record_error(self: &Arc<Self>, action: &'static str, output: String) {
        self.in_background(
            Accounted {
                action,
                file: None,
                baseline: Baseline::NoClaim,
                output,
            },
            true,
        );
    }

    fn in_background(self: &Arc<Self>, call: Accounted, error: bool) {
        use std::sync::atomic::Ordering;
        self.pending.fetch_add(1, Ordering::SeqCst);
        let me = self.clone();
        // Whether this record needs a trailing write is decided right after it is
        // counted, not when the async side gets round to it: a late decision could
        // schedule a write for a record the pending one already covered.
        let (done, counted) = tokio::sync::oneshot::channel();
        self.on_accountant(Box::new(move || {
            let wrote = me.account(call, error);
            me.pending.fetch_sub(1, Ordering::SeqCst);
            let _ = done.send(!wrote && !me.trailing.swap(true, Ordering::SeqCst));
        }));
        let me = self.clone();
        tokio::spawn(async move {
            if counted.await.unwrap_or(false) {
                tokio::time::sleep(WRITE_EVERY).await;
                // Cleared before the write: a record counted after it schedules its own.
                me.trailing.store(false, Ordering::SeqCst);
                let _ = tokio::task::spawn_blocking(move || me.flush()).await;
            }
        });
        // Release the tokenizer once the burst is over: one timer for the burst, not
        // one per call.
        if !self.releasing.swap(true, Ordering::SeqCst) {
            let me = self.clone();
            tokio::spawn(async move {
                let mut wait = TOKENIZER_IDLE;
                loop {
                    tokio::time::sleep(wait + Duration::from_millis(100)).await;
                    match me.tokenizer.release_if_idle() {
                        Some(left) => wait = left,
                        None => break,
                    }
                }
                // A record landing between the release and this store keeps the
                // tables until the next record schedules a timer again.
                me.releasing.store(false, Ordering::SeqCst);
            });
        }
    }

    /// Runs `job` on the accounting thread, started by the first record, in order and
    /// at [`crate::sys::lower_priority`]: counting is bookkeeping, and on the blocking
    /// pool the first record's count (the tokenizer's load with it) took a core from
    /// the shim it had just answered. On the blocking pool only if that thread cannot
    /// be started.
    fn on_accountant(&self, job: Job) {
        let queue = self.accountant.get_or_init(|| {
            let (queue, jobs) = std::sync::mpsc::channel::<Job>();
            let started = std::thread::Builder::new()
                .name("lean-ctx-gain".into())
                .spawn(move || {
                    crate::sys::lower_priority();
                    for job in jobs {
                        job();
                    }
                });
            if let Err(e) = started {
                tracing::warn!(error = %e, "cannot start the accounting thread; counting on the blocking pool");
            }
            queue
        });
        if let Err(std::sync::mpsc::SendError(job)) = queue.send(job) {
            tokio::task::spawn_blocking(job);
        }
    }

    /// At shutdown: lets queued records finish (at most `cap`), then writes.
    pub async fn flush_at_exit(&self, cap: Duration) {
        let deadline = Instant::now() + cap;
        while self.pending.load(std::sync::atomic::Ordering::SeqCst) > 0
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        self.flush();
    }

    /// Counts one call; `true` if it wrote `stats.json`.
    fn account(&self, call: Accounted, error: bool) -> bool {
        let output = self.text_tokens(&call.output);
        let input = self.baseline_tokens(&call.baseline).unwrap_or(output);
        let day = humantime::format_rfc3339(SystemTime::now()).to_string()[..10].to_string();
        let file = call.file.as_ref().map(|f| f.display().to_string());
        // In the order `flush` takes them, so a write never sees one without the other.
        let mut unflushed = self.unflushed.lock().unwrap();
        for stats in [&mut *unflushed, &mut *self.stats.lock().unwrap()] {
            stats.count(call.action, &day, file.as_deref(), (input, output), error);
        }
        drop(unflushed);
        let due = self
            .last_write
            .lock()
            .unwrap()
            .is_none_or(|t| t.elapsed() >= WRITE_EVERY);
        if due {
            self.flush();
        }
        due
    }

    /// The tokens `baseline` stands for; `None` for no claim (or a file no longer
    /// readable): the call's own output then.
    fn baseline_tokens(&self, baseline: &Baseline) -> Option<u64> {
        match baseline {
            Baseline::NoClaim => None,
            Baseline::Text(text) => Some(self.text_tokens(text)),
            Baseline::File(file) => self.tokens_of_file(file),
            Baseline::Sum(each) => each
                .iter()
                .map(|b| self.baseline_tokens(b))
                .sum::<Option<u64>>(),
        }
    }

    fn text_tokens(&self, text: &str) -> u64 {
        let key = *blake3::hash(text.as_bytes()).as_bytes();
        self.text_tokens
            .get_with(key, || self.tokenizer.count(text))
    }

    fn tokens_of_file(&self, file: &Jailed) -> Option<u64> {
        let mut open = file.open().ok()?;
        let id = FileId::from(&rustix::fs::fstat(&open).ok()?);
        if let Some(n) = self.file_tokens.get(&id) {
            return Some(n);
        }
        let n = count_streamed(&self.tokenizer, &mut open, COUNT_PIECE)?;
        self.file_tokens.insert(id, n);
        Some(n)
    }

    /// Writes `stats.json` now: under an exclusive flock on `stats.json.lock` beside
    /// it, the file as it is on disk plus what this daemon counted since its last
    /// write, then temp file + rename (the plugin never reads half a file). Adding to
    /// the file instead of overwriting it keeps the counts of two daemons that run
    /// side by side during an upgrade (`upgrade.rs`): each adds its own.
    pub fn flush(&self) {
        *self.last_write.lock().unwrap() = Some(Instant::now());
        let _lock = match self.lock_file() {
            Ok(lock) => Some(lock),
            Err(e) => {
                // Unlocked, a write can at worst lose the other daemon's last second.
                tracing::warn!(path = %self.path.display(), error = %e, "cannot lock stats");
                None
            }
        };
        let mut unflushed = self.unflushed.lock().unwrap();
        let mut merged = self.path.parent().map(Stats::read).unwrap_or_default();
        merged.merge(&unflushed);
        let bytes = serde_json::to_vec_pretty(&merged).expect("stats serialize");
        match lean_ctx_shared::paths::write_private(&self.path, &bytes) {
            Ok(()) => {
                *unflushed = Stats::default();
                *self.stats.lock().unwrap() = merged;
            }
            Err(e) => {
                tracing::warn!(path = %self.path.display(), error = %e, "cannot write stats");
            }
        }
    }

    /// The flock that orders writers of `stats.json` (daemons of two builds).
    fn lock_file(&self) -> std::io::Result<std::fs::File> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(self.path.with_extension("json.lock"))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
        Ok(file)
    }

    pub fn snapshot(&self) -> Stats {
        self.stats.lock().unwrap().clone()
    }
}

/// The tokens of everything `from` yields, counted a piece at a time: pieces of
/// about `size` bytes, each cut after a line break that a non-space follows
/// (o200k's pre-tokenizer always ends a piece there, and no token spans two), so
/// a call about a file of hundreds of MiB holds one piece, not the file (eight
/// concurrent reads of a 250 MB file held 2.3 GB when it was read whole). A piece
/// with no such place grows until it has one or reaches four times `size`, where it
/// is cut as it is (a line that long may count a token or two apart).
fn count_streamed(tokenizer: &Tokenizer, from: &mut impl Read, size: usize) -> Option<u64> {
    let mut piece = Vec::with_capacity(size + 4096);
    let mut n = 0;
    loop {
        let before = piece.len();
        piece.resize(before + size, 0);
        let got = from.read(&mut piece[before..]).ok()?;
        piece.truncate(before + got);
        let cut = piece
            .windows(2)
            .rposition(|w| w[0] == b'\n' && !w[1].is_ascii_whitespace())
            .map(|at| at + 1);
        let end = match cut {
            _ if got == 0 => piece.len(),
            Some(end) => end,
            None if piece.len() < 4 * size => continue,
            None => piece.len(),
        };
        n += tokenizer.count(&String::from_utf8_lossy(&piece[..end]));
        piece.drain(..end);
        if got == 0 {
            return Some(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// Tokens of `text` under `o200k_base` (loads the tables for this one count).
    fn count_tokens(text: &str) -> u64 {
        Tokenizer::default().count(text)
    }

    /// Counted a piece at a time, a text gives exactly the tokens it gives whole,
    /// wherever its pieces are cut (runs of blank lines, indentation), while no line
    /// runs past four pieces.
    #[test]
    fn a_file_counted_in_pieces_counts_as_a_whole() {
        let t = Tokenizer::default();
        let text = "fn main() {\n    let x = 1;\n\n\n    println!(\"{x}\");\n}\n  \n\tindented\nnext\r\nline ü\n"
            .repeat(50)
            + &"long line without a break ".repeat(40);
        let whole = t.count(&text);
        for size in [300, 1000, 1 << 20] {
            let streamed = count_streamed(&t, &mut text.as_bytes(), size);
            assert_eq!(streamed, Some(whole), "pieces of {size}");
        }
    }

    #[test]
    fn the_tokenizer_is_released_only_after_it_idles() {
        let t = Tokenizer::default();
        assert_eq!(t.release_if_idle(), None);
        assert_eq!(t.count("fn main() {}"), 4);
        let left = t.release_if_idle().expect("released while in use");
        assert!(left > TOKENIZER_IDLE - Duration::from_secs(5), "{left:?}");
        t.loaded.lock().unwrap().as_mut().unwrap().1 -= TOKENIZER_IDLE;
        assert_eq!(t.release_if_idle(), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_daemons_writing_one_stats_file_keep_each_others_counts() {
        let tmp = tempfile::tempdir().unwrap();
        // Two builds' daemons side by side during an upgrade, both loaded from one file.
        let (old, new) = (
            Arc::new(Gain::load(tmp.path())),
            Arc::new(Gain::load(tmp.path())),
        );
        for round in 0..3 {
            for (gain, action) in [(&old, "outline"), (&new, "search_symbol")] {
                for _ in 0..=round {
                    gain.record_error(action, "ERROR: X".into());
                }
                gain.flush_at_exit(Duration::from_secs(60)).await;
            }
        }
        let on_disk = Stats::read(tmp.path());
        assert_eq!(on_disk.total_commands, 12);
        assert_eq!(on_disk.commands["outline"].commands, 6);
        assert_eq!(on_disk.commands["search_symbol"].commands, 6);
        assert_eq!(new.snapshot(), on_disk);
    }

    #[tokio::test]
    async fn a_record_right_after_a_write_reaches_the_file_a_second_later() {
        let tmp = tempfile::tempdir().unwrap();
        let gain = Arc::new(Gain::load(tmp.path()));
        for _ in 0..3 {
            gain.record_error("outline", "ERROR: X".into());
        }
        let on_disk = || Stats::read(tmp.path()).total_commands;
        let trailing = || gain.trailing.load(std::sync::atomic::Ordering::SeqCst);
        // Bounds failure only: loading the tokenizer alone takes seconds on a busy
        // machine. A write that took the later records along (they were counted while
        // it waited for the file's lock) may leave a trailing write scheduled: it
        // must still run and clear the flag.
        let deadline = Instant::now() + Duration::from_secs(60);
        while (on_disk() < 3 || trailing()) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(on_disk(), 3);
        assert!(!trailing());
    }

    #[test]
    fn baselines_are_counted_with_a_real_tokenizer_and_totals_persist() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a.rs");
        let source = "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n".repeat(20);
        fs::write(&file, &source).unwrap();
        let gain = Gain::load(tmp.path());
        let output = "a.rs (rust, 20 symbols)\n     1  pub fn add(a: u32, b: u32) -> u32";
        gain.account(
            Accounted {
                action: "symbols_overview",
                file: Some(file.clone()),
                baseline: Baseline::File(
                    crate::jail::resolve(tmp.path(), tmp.path(), "a.rs", crate::jail::Want::File)
                        .unwrap(),
                ),
                output: output.into(),
            },
            false,
        );
        gain.account(
            Accounted {
                action: "search_symbol",
                file: None,
                baseline: Baseline::NoClaim,
                output: "1 matches".into(),
            },
            false,
        );
        gain.account(
            Accounted {
                action: "outline",
                file: None,
                baseline: Baseline::NoClaim,
                output: "ERROR: X".into(),
            },
            true,
        );
        let stats = gain.snapshot();
        assert_eq!(stats.total_commands, 3);
        assert_eq!(stats.total_errors, 1);
        assert_eq!(
            stats.commands["symbols_overview"].input_tokens,
            count_tokens(&source)
        );
        assert!(count_tokens(&source) > 200, "{}", count_tokens(&source));
        assert_eq!(
            stats.commands["search_symbol"].input_tokens,
            stats.commands["search_symbol"].output_tokens
        );
        assert_eq!(stats.files[&file.display().to_string()].commands, 1);
        gain.flush();
        assert_eq!(Gain::load(tmp.path()).snapshot(), stats);
        // The keys the plugin's StatsReader extracts.
        let json: serde_json::Value =
            serde_json::from_slice(&fs::read(tmp.path().join("stats.json")).unwrap()).unwrap();
        for key in [
            "total_input_tokens",
            "total_output_tokens",
            "total_commands",
        ] {
            assert!(json[key].is_u64(), "{key}");
        }
    }
}
