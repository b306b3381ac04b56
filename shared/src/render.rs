//! The canonical compact text of every answer: what a person sees from the CLI, what
//! an agent gets from `lean-ctx mcp`, and what the daemon counts as the tokens it
//! returned (gain accounting). One line per symbol or hit, root-relative paths,
//! `line:col`, totals and truncation said plainly: tokens are the agent's budget.

use crate::{
    ErrorDetails, LeanError,
    protocol::{
        EditAction, EditResponse, OutlineResponse, SearchSymbolResponse, SymbolInfo,
        SymbolsOverviewResponse,
    },
};

/// Symbols as an indented tree: `  LINE  signature`.
fn tree(symbols: &[SymbolInfo], depth: usize, s: &mut String) {
    for sym in symbols {
        s.push_str(&format!(
            "{}{:>4}  {}\n",
            "  ".repeat(depth),
            sym.range.start.line,
            sym.signature
        ));
        tree(&sym.children, depth + 1, s);
    }
}

pub fn outline(resp: &OutlineResponse) -> String {
    let mut s = String::new();
    for f in &resp.files {
        s.push_str(&format!("{} ({})\n", f.path, f.language));
        tree(&f.symbols, 1, &mut s);
    }
    if resp.truncated {
        s.push_str(&format!(
            "… {} of {} files shown; narrow the path or raise the limit\n",
            resp.files.len(),
            resp.total_files
        ));
    }
    if resp.files.is_empty() {
        s.push_str("no indexed files here\n");
    }
    s.trim_end().to_string()
}

pub fn symbols_overview(resp: &SymbolsOverviewResponse) -> String {
    let mut s = format!(
        "{} ({}, {} symbols)\n",
        resp.path, resp.language, resp.total
    );
    tree(&resp.symbols, 1, &mut s);
    s.trim_end().to_string()
}

pub fn search(resp: &SearchSymbolResponse, query: &str) -> String {
    let mut s = String::new();
    for h in &resp.hits {
        s.push_str(&format!(
            "{}:{}:{}  {} {}  {}\n",
            h.path,
            h.range.start.line,
            h.range.start.column,
            h.kind.as_str(),
            h.name_path,
            h.signature
        ));
    }
    s.push_str(&match (resp.total, resp.truncated) {
        (0, _) => format!("no symbol matches {query:?}"),
        (n, true) => format!(
            "{} of {n} matches shown (raise the limit for more)",
            resp.hits.len()
        ),
        (n, false) => format!("{n} matches"),
    });
    s
}

pub fn edit(action: EditAction, resp: &EditResponse) -> String {
    format!(
        "{} {}:{} written, hash {}",
        action.as_str(),
        resp.path,
        resp.new_range,
        resp.hash
    )
}

/// `ERROR: CODE: message`, the remedy, and the candidates or progress if any.
pub fn error(e: &LeanError) -> String {
    let mut s = format!("ERROR: {}: {}\nremedy: {}", e.code, e.message, e.remedy());
    match &e.details {
        Some(ErrorDetails::Candidates(candidates)) => {
            for c in candidates {
                s.push_str(&format!("\n  {}  {}:{}", c.name_path, c.path, c.line));
            }
        }
        Some(ErrorDetails::Progress(p)) => {
            s.push_str(&format!("\nprogress: {}% ({})", p.percent, p.message))
        }
        None => {}
    }
    s
}
