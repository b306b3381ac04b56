//! How a browser gets a dashboard session without a credential ever appearing in a
//! command line or a URL another local user can read (issue 15: the token used to
//! travel in `xdg-open`'s argv, readable by anyone from `/proc/PID/cmdline`).
//!
//! Each `lean-ctx dashboard` mints a one-time code, valid for [`CODE_TTL`] and for
//! one use. By default the code goes into a one-time page (mode 0600, in the private
//! 0700 runtime dir) that the browser opens as `file://...`: others see that path,
//! never what is in it. The page posts the code to `/login` by itself; the dashboard
//! answers with the session as an `HttpOnly`, `SameSite=Strict` cookie and removes
//! the page. (Jupyter hands its token over the same way.) `--no-open` asks for the
//! code as a URL instead, printed to the user's own terminal to paste.
//!
//! Codes are kept by their BLAKE3, so looking one up takes no time that depends on
//! how much of a guess was right.

use std::{
    collections::HashMap,
    fs::{self, OpenOptions},
    io::{self, Write},
    os::unix::fs::OpenOptionsExt,
    path::{Path, PathBuf},
    sync::Mutex,
    time::{Duration, Instant},
};

/// How long a one-time code opens a session.
pub const CODE_TTL: Duration = Duration::from_secs(120);

/// The route that spends a code.
pub const LOGIN: &str = "/login";

const PAGE: &str = include_str!("assets/handover.html");

#[derive(Debug, Default)]
pub struct Codes {
    pending: Mutex<HashMap<[u8; 32], Pending>>,
}

#[derive(Debug)]
struct Pending {
    expires: Instant,
    /// The one-time page holding the code, removed with it.
    page: Option<PathBuf>,
}

impl Codes {
    pub fn add(&self, code: &str, page: Option<PathBuf>) {
        self.pending.lock().unwrap().insert(
            key(code),
            Pending {
                expires: Instant::now() + CODE_TTL,
                page,
            },
        );
    }

    /// Spends `code`: true exactly once for a code that has not expired.
    pub fn redeem(&self, code: &str) -> bool {
        let spent = self.pending.lock().unwrap().remove(&key(code));
        match spent {
            Some(p) => {
                remove_page(p.page.as_deref());
                p.expires > Instant::now()
            }
            None => false,
        }
    }

    /// Forgets expired codes (all of them with `everything`) and removes their pages.
    pub fn expire(&self, everything: bool) {
        let now = Instant::now();
        let gone: Vec<Pending> = {
            let mut pending = self.pending.lock().unwrap();
            let keys: Vec<[u8; 32]> = pending
                .iter()
                .filter(|(_, p)| everything || p.expires <= now)
                .map(|(k, _)| *k)
                .collect();
            keys.iter().filter_map(|k| pending.remove(k)).collect()
        };
        for p in gone {
            remove_page(p.page.as_deref());
        }
    }
}

fn key(code: &str) -> [u8; 32] {
    *blake3::hash(code.as_bytes()).as_bytes()
}

fn remove_page(page: Option<&Path>) {
    if let Some(page) = page
        && let Err(e) = fs::remove_file(page)
        && e.kind() != io::ErrorKind::NotFound
    {
        tracing::warn!(page = %page.display(), error = %e, "cannot remove a dashboard handover page");
    }
}

/// Writes the one-time page that posts `code` to `origin`'s login route: created
/// 0600 (`create_new`, so nothing planted at its name is written through) in `dir`,
/// the runtime dir the daemon has verified is ours and 0700.
pub fn write_page(dir: &Path, origin: &str, code: &str) -> io::Result<PathBuf> {
    let name = &blake3::hash(code.as_bytes()).to_hex()[..16];
    let path = dir.join(format!("dashboard-{name}.html"));
    let html = PAGE
        .replace("__ACTION__", &format!("{origin}{LOGIN}"))
        .replace("__CODE__", code);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    file.write_all(html.as_bytes()).inspect_err(|_| {
        let _ = fs::remove_file(&path);
    })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_code_opens_one_session_and_its_page_goes_with_it() {
        let tmp = tempfile::tempdir().unwrap();
        let codes = Codes::default();
        let page = write_page(tmp.path(), "http://127.0.0.1:9", "c0de").unwrap();
        assert_eq!(
            fs::metadata(&page).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let html = fs::read_to_string(&page).unwrap();
        assert!(html.contains("http://127.0.0.1:9/login") && html.contains("c0de"));
        codes.add("c0de", Some(page.clone()));
        assert!(!codes.redeem("c0dE"));
        assert!(codes.redeem("c0de"));
        assert!(!page.exists());
        assert!(!codes.redeem("c0de"), "a second use");
    }

    #[test]
    fn expiry_forgets_codes_and_removes_pages() {
        let tmp = tempfile::tempdir().unwrap();
        let codes = Codes::default();
        let page = write_page(tmp.path(), "http://127.0.0.1:9", "c1").unwrap();
        codes.add("c1", Some(page.clone()));
        codes.expire(false);
        assert!(page.exists(), "not expired yet");
        codes.expire(true);
        assert!(!page.exists());
        assert!(!codes.redeem("c1"));
    }
}
