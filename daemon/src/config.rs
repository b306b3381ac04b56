//! `config.toml` in the config dir. Missing file: defaults. A file that does not parse
//! stops the daemon with the path and the parser's message, never a silent default.
//!
//! Sections: `[daemon]` (idle and connection timeouts, the connection cap, project
//! eviction), `[index]` (file size cap, rescans, the persisted store, prewarming),
//! `[lsp]` (which servers, pool limits), `[trust]` (`trust.rs`) and `[ide]` (`timeout`,
//! `apply_timeout`, `health_timeout`).

use std::{path::Path, time::Duration};

use serde::Deserialize;

/// Idle timeout of an auto-spawned daemon when nothing configures one.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("invalid config {path}: {message}")]
    Invalid { path: String, message: String },
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub daemon: DaemonSection,
    #[serde(default)]
    pub index: IndexSection,
    #[serde(default)]
    pub lsp: LspSection,
    #[serde(default)]
    pub trust: TrustSection,
    #[serde(default)]
    pub ide: IdeSection,
    #[serde(default)]
    pub answers: AnswersSection,
}

/// `[answers]`: how large one answer may grow.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswersSection {
    /// The cap of one answer, in bytes (`budget.rs`): a read past it is answered a
    /// page at a time, a listing or search is cut and says so. The default is about
    /// 20,000 o200k tokens of code.
    #[serde(default = "default_answer_bytes")]
    pub max_bytes: u64,
}

impl Default for AnswersSection {
    fn default() -> AnswersSection {
        toml::from_str("").expect("the empty [answers] section has defaults")
    }
}

fn default_answer_bytes() -> u64 {
    crate::budget::DEFAULT_CAP
}

/// `[ide]`: how long a JetBrains IDE window may take to answer.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdeSection {
    /// Reads, navigation and previews. A window that takes longer is not asked again
    /// for a while (the call falls back to the next backing in the meantime).
    #[serde(default = "default_ide_timeout", with = "duration_str")]
    pub timeout: Duration,
    /// Applying a refactoring, an edit or a reformat: the IDE may run a while.
    #[serde(default = "default_ide_apply_timeout", with = "duration_str")]
    pub apply_timeout: Duration,
    /// `GET /health` must answer within this for the window to be used
    /// (docs/ide-wire.md, Reachability: 300 ms). A machine too busy for that (a JVM's
    /// first request while builds run) may raise it; a window that misses it is passed
    /// over for this call only.
    #[serde(default = "default_ide_health_timeout", with = "duration_str")]
    pub health_timeout: Duration,
}

impl Default for IdeSection {
    fn default() -> IdeSection {
        toml::from_str("").expect("the empty [ide] section has defaults")
    }
}

fn default_ide_timeout() -> Duration {
    Duration::from_secs(30)
}

fn default_ide_apply_timeout() -> Duration {
    Duration::from_secs(120)
}

fn default_ide_health_timeout() -> Duration {
    Duration::from_millis(300)
}

/// `[trust]`: the roots whose code language servers may run (`trust.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustSection {
    /// Absolute directories, each with everything below it, taken as written: a
    /// name with `*`, `[` or `{` in it is a directory of that name, never a pattern.
    /// `~/` is the home directory.
    #[serde(default)]
    pub roots: Vec<String>,
    /// Patterns matched against canonical roots (`~/src/**`): only here, where the
    /// user asked for a pattern (`lean-ctx trust --glob`). `*` and `?` stay within
    /// one directory name; `**` crosses them.
    #[serde(default)]
    pub globs: Vec<String>,
}

/// A language's server: `"rust-analyzer"`, `"jetbrains"` (the IDE or nothing), or a
/// command line, as one string split at spaces or as an array of arguments.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum ServerSetting {
    Line(String),
    Argv(Vec<String>),
}

/// `[lsp]`: which language server per language, and how many may stay warm.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LspSection {
    pub rust: Option<ServerSetting>,
    pub python: Option<ServerSetting>,
    pub typescript: Option<ServerSetting>,
    pub javascript: Option<ServerSetting>,
    pub go: Option<ServerSetting>,
    pub java: Option<ServerSetting>,
    pub kotlin: Option<ServerSetting>,
    pub c: Option<ServerSetting>,
    pub cpp: Option<ServerSetting>,
    pub csharp: Option<ServerSetting>,
    pub ruby: Option<ServerSetting>,
    pub php: Option<ServerSetting>,
    pub bash: Option<ServerSetting>,
    pub lua: Option<ServerSetting>,
    pub scala: Option<ServerSetting>,
    pub swift: Option<ServerSetting>,
    pub haskell: Option<ServerSetting>,
    pub elixir: Option<ServerSetting>,
    pub ocaml: Option<ServerSetting>,
    pub r: Option<ServerSetting>,
    /// A server unused this long is shut down.
    #[serde(default = "default_lsp_idle", with = "duration_str")]
    pub idle_ttl: Duration,
    /// Most warm servers; the least recently used goes first.
    #[serde(default = "default_max_servers")]
    pub max_servers: usize,
    /// Resident memory all servers together may use, in MiB; over it, the least
    /// recently used are shut down.
    #[serde(default = "default_rss_budget_mb")]
    pub rss_budget_mb: u64,
    #[serde(default, rename = "rust-analyzer")]
    pub rust_analyzer: RustAnalyzerSection,
    /// The `tsserver.js` typescript-language-server runs; default: the TypeScript
    /// installed beside the server, never the project's `node_modules` (`pool.rs`).
    pub tsserver: Option<String>,
}

impl LspSection {
    /// `lsp.<key>`, where `key` is a language's name (`lean_ctx_shared::servers`).
    pub fn server(&self, key: &str) -> Option<&ServerSetting> {
        match key {
            "rust" => self.rust.as_ref(),
            "python" => self.python.as_ref(),
            "typescript" => self.typescript.as_ref(),
            "javascript" => self.javascript.as_ref(),
            "go" => self.go.as_ref(),
            "java" => self.java.as_ref(),
            "kotlin" => self.kotlin.as_ref(),
            "c" => self.c.as_ref(),
            "cpp" => self.cpp.as_ref(),
            "csharp" => self.csharp.as_ref(),
            "ruby" => self.ruby.as_ref(),
            "php" => self.php.as_ref(),
            "bash" => self.bash.as_ref(),
            "lua" => self.lua.as_ref(),
            "scala" => self.scala.as_ref(),
            "swift" => self.swift.as_ref(),
            "haskell" => self.haskell.as_ref(),
            "elixir" => self.elixir.as_ref(),
            "ocaml" => self.ocaml.as_ref(),
            "r" => self.r.as_ref(),
            _ => None,
        }
    }
}

impl Default for LspSection {
    fn default() -> LspSection {
        toml::from_str("").expect("the empty [lsp] section has defaults")
    }
}

fn default_lsp_idle() -> Duration {
    Duration::from_secs(10 * 60)
}

fn default_max_servers() -> usize {
    8
}

fn default_rss_budget_mb() -> u64 {
    16 * 1024
}

/// `[lsp.rust-analyzer]`. Build scripts and proc macros run the project's own code,
/// so they are off unless a user turns them on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RustAnalyzerSection {
    #[serde(default)]
    pub build_scripts: bool,
    #[serde(default)]
    pub proc_macros: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexSection {
    /// Files larger than this are not indexed.
    #[serde(default = "default_max_file_bytes")]
    pub max_file_bytes: u64,
    /// Cap of the daemon-wide parsed-symbol cache, in bytes.
    #[serde(default = "default_symbol_cache_bytes")]
    pub symbol_cache_bytes: u64,
    /// How often a root that cannot be (fully) watched is walked again, so its
    /// answers lag the disk by at most this long.
    #[serde(default = "default_rescan_interval", with = "duration_str")]
    pub rescan_interval: Duration,
    /// Cap of the persisted index on disk (`<state dir>/index`), in bytes; least
    /// recently used parses are dropped beyond it. 0: nothing is persisted.
    #[serde(default = "default_store_max_bytes")]
    pub store_max_bytes: u64,
    /// How many of the roots last called for (within a week) a starting daemon
    /// checks against their last walk's listing before any call, most recent
    /// first; 0: none. Needs the persisted index.
    #[serde(default = "default_prewarm_roots")]
    pub prewarm_roots: usize,
    /// Whether text searches are answered from the trigram index (memory: about a
    /// fifth of a byte per indexed byte, at most a quarter of `store_max_bytes`;
    /// files past that are read by every search); off, each search reads every
    /// file.
    #[serde(default = "default_text_index")]
    pub text_index: bool,
}

impl IndexSection {
    /// The most the text index's lists may take in memory: a quarter of the
    /// store's cap, as its snapshot on disk (`index/store/persist.rs`), or of the
    /// default cap with the store off.
    pub fn text_index_cap(&self) -> u64 {
        match self.store_max_bytes {
            0 => default_store_max_bytes() / 4,
            cap => cap / 4,
        }
    }
}

impl Default for IndexSection {
    fn default() -> IndexSection {
        toml::from_str("").expect("the empty [index] section has defaults")
    }
}

fn default_rescan_interval() -> Duration {
    Duration::from_secs(30)
}

fn default_max_file_bytes() -> u64 {
    1024 * 1024
}

fn default_text_index() -> bool {
    true
}

fn default_prewarm_roots() -> usize {
    4
}

fn default_store_max_bytes() -> u64 {
    512 * 1024 * 1024
}

fn default_symbol_cache_bytes() -> u64 {
    256 * 1024 * 1024
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DaemonSection {
    /// e.g. `"30m"`, `"2h"`; how long an auto-spawned daemon waits without connections
    /// before it exits.
    #[serde(default = "default_idle", with = "duration_str")]
    pub idle_timeout: Duration,
    /// A connection with no call for this long is closed (the shim reconnects on its
    /// next call), so peers that connect and go quiet cannot pile up.
    #[serde(default = "default_connection_idle", with = "duration_str")]
    pub connection_idle_timeout: Duration,
    /// Most open connections; over it a new one is refused in its hello.
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// A project with no call for this long is dropped from the registry (its watches
    /// released; the content-addressed caches keep its parses), unless a call or a
    /// language server still uses it. The next call registers it again.
    #[serde(default = "default_project_idle", with = "duration_str")]
    pub project_idle_timeout: Duration,
}

impl Default for DaemonSection {
    fn default() -> DaemonSection {
        toml::from_str("").expect("the empty [daemon] section has defaults")
    }
}

fn default_connection_idle() -> Duration {
    Duration::from_secs(10 * 60)
}

fn default_max_connections() -> usize {
    256
}

fn default_project_idle() -> Duration {
    Duration::from_secs(60 * 60)
}

fn default_idle() -> Duration {
    DEFAULT_IDLE_TIMEOUT
}

/// Durations as humantime strings (`"30m"`), without another dependency.
mod duration_str {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, de::Error};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = String::deserialize(d)?;
        humantime::parse_duration(&s).map_err(D::Error::custom)
    }
}

impl Config {
    /// The user's configuration: [`Config::load`], unless
    /// `lean_ctx_shared::paths::not_the_users_own` says the file must be ignored (inside
    /// a repository, or not the user's alone): then the defaults, and why.
    pub fn load_user(path: &Path) -> Result<(Config, Option<String>), ConfigError> {
        let home = lean_ctx_shared::paths::canonical_home();
        match lean_ctx_shared::paths::not_the_users_own(path, home.as_deref()) {
            Some(why) => Ok((Config::default(), Some(why))),
            None => Ok((Config::load(path)?, None)),
        }
    }

    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        toml::from_str(&text).map_err(|e| ConfigError::Invalid {
            path: path.display().to_string(),
            message: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_gives_defaults_and_values_parse() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.toml");
        assert_eq!(Config::load(&path).unwrap(), Config::default());
        std::fs::write(
            &path,
            "[daemon]\nidle_timeout = \"2h 5m\"\n[index]\nmax_file_bytes = 10\n",
        )
        .unwrap();
        let c = Config::load(&path).unwrap();
        assert_eq!(c.daemon.idle_timeout, Duration::from_secs(2 * 3600 + 300));
        assert_eq!(c.index.max_file_bytes, 10);
        assert_eq!(c.index.symbol_cache_bytes, 256 * 1024 * 1024);
        assert_eq!(c.index.store_max_bytes, 512 * 1024 * 1024);
        assert_eq!(c.lsp.idle_ttl, Duration::from_secs(600));
        std::fs::write(
            &path,
            "[lsp]\nrust = \"/opt/ra --log\"\npython = [\"/a b/pylsp\"]\nidle_ttl = \"5s\"\n[lsp.rust-analyzer]\nproc_macros = true\n",
        )
        .unwrap();
        let c = Config::load(&path).unwrap();
        assert_eq!(
            c.lsp.rust,
            Some(ServerSetting::Line("/opt/ra --log".into()))
        );
        assert_eq!(
            c.lsp.python,
            Some(ServerSetting::Argv(vec!["/a b/pylsp".into()]))
        );
        assert_eq!(c.lsp.idle_ttl, Duration::from_secs(5));
        assert!(c.lsp.rust_analyzer.proc_macros && !c.lsp.rust_analyzer.build_scripts);
    }

    #[test]
    fn typos_and_bad_values_are_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.toml");
        for bad in [
            "[daemon]\nidle_timout = \"1m\"\n",
            "[daemon]\nidle_timeout = \"soon\"\n",
            "[lsp]\ncobol = \"cobol-ls\"\n",
        ] {
            std::fs::write(&path, bad).unwrap();
            let err = Config::load(&path).unwrap_err();
            assert!(matches!(err, ConfigError::Invalid { .. }), "{err}");
        }
    }
}
