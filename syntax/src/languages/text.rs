//! Text: every file no code language claims (configuration, docs, build files,
//! scripts of languages without a grammar here). No grammar, so no symbols and no
//! syntax errors: such a file is read, searched and edited by lines, and listed with
//! the rest of the worktree, never left out for its name.

use super::Language;
use crate::decl::{Comments, DocBlock};

pub(super) const TEXT: Language = Language {
    name: "text",
    extensions: &[],
    lsp_id: "plaintext",
    grammar: None,
    classify: |_, _, _| Vec::new(),
    sibling_attribute: None,
    comments: Comments {
        line: &[],
        block: None,
        doc_line: None,
        doc_block: DocBlock::No,
        quotes: b"",
    },
    imports: &[],
    keywords: &[],
    attribute: |_| false,
    // No symbols, so never probed.
    probe: |_| "lean-ctx probe",
    declarations: None,
    skeleton: None,
};

/// What a text file is, for listings (`ctx_tree`'s kinds): by its name or
/// extension, `text` when neither says.
pub(super) fn kind(name: &str) -> &'static str {
    const NAMES: &[(&str, &str)] = &[
        ("Makefile", "make"),
        ("GNUmakefile", "make"),
        ("Dockerfile", "docker"),
        ("Containerfile", "docker"),
        ("Jenkinsfile", "groovy"),
        ("CMakeLists.txt", "cmake"),
        ("Gemfile", "ruby"),
        ("Rakefile", "ruby"),
    ];
    const EXTENSIONS: &[(&[&str], &str)] = &[
        (&["toml"], "toml"),
        (&["yaml", "yml"], "yaml"),
        (&["json", "jsonc", "json5"], "json"),
        (&["md", "markdown", "mdx"], "markdown"),
        (&["rst"], "rst"),
        (&["txt"], "text"),
        (&["zsh", "fish", "ksh"], "shell"),
        (&["ps1"], "powershell"),
        (&["xml", "xsd", "xsl"], "xml"),
        (&["html", "htm"], "html"),
        (&["css", "scss", "sass", "less"], "css"),
        (&["svg"], "svg"),
        (&["sql"], "sql"),
        (&["ini", "cfg", "conf", "properties", "env"], "config"),
        (&["lock"], "lock"),
        (&["csv", "tsv"], "csv"),
        (&["gradle", "groovy"], "groovy"),
        (&["proto"], "protobuf"),
        (&["graphql", "gql"], "graphql"),
        (&["tf", "hcl"], "hcl"),
        (&["mk"], "make"),
        (&["cmake"], "cmake"),
        (&["vue"], "vue"),
        (&["svelte"], "svelte"),
    ];
    if let Some((_, kind)) = NAMES.iter().find(|(n, _)| *n == name) {
        return kind;
    }
    let ext = name
        .rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty())
        .map(|(_, ext)| ext.to_ascii_lowercase());
    ext.and_then(|ext| {
        EXTENSIONS
            .iter()
            .find(|(exts, _)| exts.contains(&ext.as_str()))
            .map(|(_, kind)| *kind)
    })
    .unwrap_or("text")
}
