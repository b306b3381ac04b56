//! The language servers lean-ctx runs with no configuration: per `[lsp]` key (a
//! language's name; TSX is `typescript`), the servers it looks for on PATH, in
//! order, and how a user gets each. The daemon starts the first one found
//! (`daemon/src/language_servers/pool.rs`); `doctor` lists what was found. A
//! `lsp.<key>` entry in config.toml overrides the search.
//!
//! The order puts the server most users of the language run first, then the
//! alternatives users ask for (basedpyright and pyright after pylsp, OmniSharp after
//! csharp-ls, Solargraph after ruby-lsp, phpactor after Intelephense).

use std::{
    ffi::OsStr,
    path::{Path, PathBuf},
};

/// A server lean-ctx knows how to run.
#[derive(Debug, PartialEq, Eq)]
pub struct Known {
    /// Its command line, split at spaces: the program, then the arguments that make
    /// it speak LSP over stdio.
    pub command: &'static str,
    /// How to install it, for a remedy.
    pub get: &'static str,
}

const fn known(command: &'static str, get: &'static str) -> Known {
    Known { command, get }
}

/// Every `[lsp]` key with the servers looked for, in order.
pub const SERVERS: &[(&str, &[Known])] = &[
    (
        "rust",
        &[known("rust-analyzer", "rustup component add rust-analyzer")],
    ),
    (
        "python",
        &[
            known("pylsp", "pip install 'python-lsp-server[pyflakes]'"),
            known(
                "basedpyright-langserver --stdio",
                "pip install basedpyright",
            ),
            known("pyright-langserver --stdio", "npm install -g pyright"),
        ],
    ),
    ("typescript", &[TYPESCRIPT]),
    ("javascript", &[TYPESCRIPT]),
    (
        "go",
        &[known("gopls", "go install golang.org/x/tools/gopls@latest")],
    ),
    (
        "java",
        &[known(
            "jdtls",
            "install Eclipse JDT LS and put jdtls on PATH",
        )],
    ),
    (
        "kotlin",
        &[known(
            "kotlin-language-server",
            "install kotlin-language-server and put it on PATH",
        )],
    ),
    ("c", &[CLANGD]),
    ("cpp", &[CLANGD]),
    (
        "csharp",
        &[
            known("csharp-ls", "dotnet tool install --global csharp-ls"),
            known("OmniSharp -lsp", "install OmniSharp and put it on PATH"),
        ],
    ),
    (
        "ruby",
        &[
            known("ruby-lsp", "gem install ruby-lsp"),
            known("solargraph stdio", "gem install solargraph"),
        ],
    ),
    (
        "php",
        &[
            known("intelephense --stdio", "npm install -g intelephense"),
            known(
                "phpactor language-server",
                "install phpactor and put it on PATH",
            ),
        ],
    ),
    (
        "bash",
        &[known(
            "bash-language-server start",
            "npm install -g bash-language-server",
        )],
    ),
    (
        "lua",
        &[known(
            "lua-language-server",
            "install lua-language-server and put it on PATH",
        )],
    ),
    ("scala", &[known("metals", "coursier install metals")]),
    (
        "swift",
        &[known(
            "sourcekit-lsp",
            "install a Swift toolchain (it ships sourcekit-lsp)",
        )],
    ),
    (
        "haskell",
        &[known(
            "haskell-language-server-wrapper --lsp",
            "ghcup install hls",
        )],
    ),
    (
        "elixir",
        &[
            known("elixir-ls", "install ElixirLS and put elixir-ls on PATH"),
            known("lexical", "install Lexical and put lexical on PATH"),
        ],
    ),
    (
        "ocaml",
        &[known("ocamllsp", "opam install ocaml-lsp-server")],
    ),
    (
        "r",
        &[known(
            "R --no-echo -e languageserver::run()",
            "install.packages(\"languageserver\") in R",
        )],
    ),
];

/// typescript-language-server for TypeScript, TSX and JavaScript.
const TYPESCRIPT: Known = known(
    "typescript-language-server --stdio",
    "npm install -g typescript-language-server typescript",
);

/// One clangd for C and C++ (`pool.rs` shares the instance).
const CLANGD: Known = known(
    "clangd",
    "apt install clangd (or your system's clangd package)",
);

/// The servers looked for for `key`, in order; empty for a key with none.
pub fn known_for(key: &str) -> &'static [Known] {
    SERVERS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(&[], |(_, servers)| servers)
}

/// The first of `key`'s servers whose program is on `path` (a PATH value), else the
/// first of them (so an error names what to install); `None` for a key with none.
pub fn detect(key: &str, path: Option<&OsStr>) -> Option<&'static Known> {
    let servers = known_for(key);
    servers
        .iter()
        .find(|k| on_path(program(k.command), path).is_some())
        .or(servers.first())
}

/// The program of a command line: its first word.
pub fn program(command: &str) -> &str {
    command.split_whitespace().next().unwrap_or("")
}

/// Where `program` is: itself if it names a path, else the first executable file of
/// that name in the directories of `path` (a PATH value).
pub fn on_path(program: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = Path::new(program);
        return executable(p).then(|| p.to_path_buf());
    }
    if program.is_empty() {
        return None;
    }
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_first_server_found_on_path_is_chosen_else_the_first_known() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().as_os_str();
        assert_eq!(detect("ruby", Some(path)).unwrap().command, "ruby-lsp");
        // Solargraph alone is installed: it is the one.
        let solargraph = dir.path().join("solargraph");
        std::fs::write(&solargraph, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&solargraph, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            detect("ruby", Some(path)).unwrap().command,
            "solargraph stdio"
        );
        // Not executable: not a server.
        std::fs::set_permissions(&solargraph, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(detect("ruby", Some(path)).unwrap().command, "ruby-lsp");
        assert_eq!(detect("text", Some(path)), None);
        assert_eq!(on_path("", Some(path)), None);
    }

    #[test]
    fn every_key_has_a_server_with_a_program_and_a_way_to_get_it() {
        for (key, servers) in SERVERS {
            assert!(!servers.is_empty(), "{key}");
            for s in *servers {
                assert!(!program(s.command).is_empty() && !s.get.is_empty(), "{key}");
            }
        }
    }
}
