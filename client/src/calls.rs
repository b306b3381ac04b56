//! The requests both front doors send (the CLI's `outline`, `tree`, `search`, `read`
//! and `refactor` verbs and the MCP tools `ctx_outline`, `ctx_tree`, `ctx_search`,
//! `ctx_read`, `ctx_refactor`): one enum,
//! built by `request::build` alone, with one deadline and one rendering per request,
//! so the two can never send or answer the same action differently.

use std::time::Duration;

use lean_ctx_shared::{
    LeanError,
    protocol::{
        EditRequest, InspectionsRequest, LeanCtxClient, NavigateRequest, OutlineRequest,
        ReadRequest, RefactorRequest, ReformatRequest, SearchSymbolRequest, SearchTextRequest,
        SymbolsOverviewRequest, TreeRequest, TypeHierarchyRequest,
    },
    render,
};
use tarpc::{client::RpcError, context::Context};

/// One request, built from command-line arguments or tool parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    Outline(OutlineRequest),
    Tree(TreeRequest),
    Search(SearchSymbolRequest),
    SearchText(SearchTextRequest),
    Read(ReadRequest),
    SymbolsOverview(SymbolsOverviewRequest),
    Edit(EditRequest),
    Navigate(NavigateRequest),
    TypeHierarchy(TypeHierarchyRequest),
    Inspections(InspectionsRequest),
    Reformat(ReformatRequest),
    Refactor(RefactorRequest),
}

/// An answer as `--json` prints it and as compact text.
#[derive(Debug)]
pub struct Answer {
    pub json: serde_json::Value,
    pub text: String,
}

fn answer<T: serde::Serialize>(resp: T, text: impl FnOnce(&T) -> String) -> Answer {
    Answer {
        text: text(&resp),
        json: serde_json::to_value(&resp).expect("answers serialise"),
    }
}

/// Past the time the daemon may wait for an index or a server (`wait_ms`): reads of
/// the index answer within this.
const INDEX_BUDGET: Duration = Duration::from_secs(30);
/// Past `wait_ms`: anything a language server or the IDE may answer (the daemon gives
/// them 30 s for queries and 120 s for refactorings, formatting and IDE edits).
const BACKING_BUDGET: Duration = Duration::from_secs(150);

impl Call {
    /// How long the front door waits for the answer (the tarpc deadline).
    pub fn timeout(&self) -> Duration {
        let (wait_ms, budget) = match self {
            Call::Outline(r) => (r.wait_ms, INDEX_BUDGET),
            Call::Tree(r) => (r.wait_ms, INDEX_BUDGET),
            Call::Search(r) => (r.wait_ms, INDEX_BUDGET),
            Call::SearchText(r) => (r.wait_ms, INDEX_BUDGET),
            // Reads the disk (and the index for symbols) without waiting for it.
            Call::Read(_) => (0, INDEX_BUDGET),
            // Files tree-sitter cannot parse go to the IDE: its quick timeout is 30 s.
            Call::SymbolsOverview(_) => (0, INDEX_BUDGET),
            Call::Edit(r) => (r.wait_ms, BACKING_BUDGET),
            Call::Navigate(r) => (r.wait_ms, BACKING_BUDGET),
            Call::TypeHierarchy(r) => (r.wait_ms, BACKING_BUDGET),
            Call::Inspections(r) => (r.wait_ms, BACKING_BUDGET),
            Call::Reformat(r) => (r.wait_ms, BACKING_BUDGET),
            Call::Refactor(r) => (r.wait_ms, BACKING_BUDGET),
        };
        Duration::from_millis(wait_ms.into()) + budget
    }

    /// Sends the call; the outer error is the transport's, the inner the daemon's.
    pub async fn send(
        &self,
        client: &LeanCtxClient,
        ctx: Context,
    ) -> Result<Result<Answer, LeanError>, RpcError> {
        Ok(match self.clone() {
            Call::Outline(req) => client
                .outline(ctx, req)
                .await?
                .map(|r| answer(r, render::outline)),
            Call::Tree(req) => client
                .tree(ctx, req)
                .await?
                .map(|r| answer(r, render::files_tree)),
            Call::Search(req) => {
                let query = req.query.clone();
                client
                    .search_symbol(ctx, req)
                    .await?
                    .map(|r| answer(r, |r| render::search(r, &query)))
            }
            Call::SearchText(req) => {
                let pattern = req.pattern.clone();
                client
                    .search_text(ctx, req)
                    .await?
                    .map(|r| answer(r, |r| render::search_text(r, &pattern)))
            }
            Call::Read(req) => client
                .read(ctx, req)
                .await?
                .map(|r| answer(r, render::read)),
            Call::SymbolsOverview(req) => client
                .symbols_overview(ctx, req)
                .await?
                .map(|r| answer(r, render::symbols_overview)),
            Call::Edit(req) => {
                let action = req.action;
                client
                    .edit_symbol(ctx, req)
                    .await?
                    .map(|r| answer(r, |r| render::edit(action, r)))
            }
            Call::Navigate(req) => client
                .navigate(ctx, req)
                .await?
                .map(|r| answer(r, render::locations)),
            Call::TypeHierarchy(req) => client
                .type_hierarchy(ctx, req)
                .await?
                .map(|r| answer(r, render::type_hierarchy)),
            Call::Inspections(req) => client
                .inspections(ctx, req)
                .await?
                .map(|r| answer(r, render::inspections)),
            Call::Reformat(req) => client
                .reformat(ctx, req)
                .await?
                .map(|r| answer(r, render::reformat)),
            Call::Refactor(req) => client
                .refactor(ctx, req)
                .await?
                .map(|r| answer(r, render::refactor)),
        })
    }
}
