//! The requests both front doors send (the CLI's `outline`, `tree`, `search`, `read`
//! and `refactor` verbs and the MCP tools `ctx_outline`, `ctx_tree`, `ctx_search`,
//! `ctx_read`, `ctx_refactor`): one enum,
//! built by `request::build` alone, with one deadline and one rendering per request,
//! so the two can never send or answer the same action differently.

use std::time::Duration;

use lean_ctx_shared::{
    LeanError,
    protocol::{
        EditRequest, EditResponse, InspectionsRequest, InspectionsResponse, LeanCtxClient,
        NavigateRequest, NavigateResponse, Operation, OutlineRequest, OutlineResponse, ReadRequest,
        ReadResponse, RefactorRequest, RefactorResponse, ReformatRequest, ReformatResponse,
        SearchSymbolRequest, SearchSymbolResponse, SearchTextRequest, SearchTextResponse,
        SymbolsOverviewRequest, SymbolsOverviewResponse, TreeRequest, TreeResponse,
        TypeHierarchyRequest, TypeHierarchyResponse,
    },
    render,
};
use tarpc::{client::RpcError, context::Context};

/// [`Call`], one variant per agent operation (`protocol::operations!`), with its
/// deadline and its send.
macro_rules! calls {
    (
        daemon { $($(#[$dm:meta])* $dop:ident($dreq:ty) -> $dresp:ty;)* }
        agent { $($(#[$am:meta])* $op:ident($req:ty) -> $resp:ty as $variant:ident, $answered_by:ident;)* }
    ) => {
        /// One request, built from command-line arguments or tool parameters.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Call {
            $($variant($req),)*
        }

        impl Call {
            /// How long the front door waits for the answer (the tarpc deadline): what
            /// the daemon may wait (`wait_ms`) and then what its answerer may take.
            pub fn timeout(&self) -> Duration {
                let (wait_ms, budget) = match self {
                    $(Call::$variant(r) => (r.wait_ms(), budget!($answered_by)),)*
                };
                Duration::from_millis(wait_ms.into()) + budget
            }

            /// Sends the call; the outer error is the transport's, the inner the daemon's.
            pub async fn send(
                &self,
                client: &LeanCtxClient,
                ctx: Context,
            ) -> Result<Result<Answer, LeanError>, RpcError> {
                Ok(match self {
                    $(Call::$variant(req) => client
                        .$op(ctx, req.clone())
                        .await?
                        .map(|r| answer(req.render(&r), r)),)*
                })
            }
        }
    };
}

/// The deadline past `wait_ms` for what an index answers, or a backing.
macro_rules! budget {
    (index) => {
        INDEX_BUDGET
    };
    (backing) => {
        BACKING_BUDGET
    };
}

/// An answer as `--json` prints it and as compact text.
#[derive(Debug)]
pub struct Answer {
    pub json: serde_json::Value,
    pub text: String,
}

fn answer<T: serde::Serialize>(text: String, resp: T) -> Answer {
    Answer {
        text,
        json: serde_json::to_value(&resp).expect("answers serialise"),
    }
}

/// Past the time the daemon may wait for an index or a server (`wait_ms`): reads of
/// the index answer within this.
const INDEX_BUDGET: Duration = Duration::from_secs(30);
/// Past `wait_ms`: anything a language server or the IDE may answer (the daemon gives
/// them 30 s for queries and 120 s for refactorings, formatting and IDE edits).
const BACKING_BUDGET: Duration = Duration::from_secs(150);

lean_ctx_shared::operations!(calls);

/// An answer as compact text, given the request it answers.
trait Rendered {
    type Answer;
    fn render(&self, answer: &Self::Answer) -> String;
}

/// Requests whose answer renders alone.
macro_rules! rendered_alone {
    ($($req:ty => $resp:ty: $render:path,)*) => {
        $(impl Rendered for $req {
            type Answer = $resp;
            fn render(&self, answer: &$resp) -> String {
                $render(answer)
            }
        })*
    };
}

rendered_alone! {
    OutlineRequest => OutlineResponse: render::outline,
    TreeRequest => TreeResponse: render::files_tree,
    ReadRequest => ReadResponse: render::read,
    SymbolsOverviewRequest => SymbolsOverviewResponse: render::symbols_overview,
    NavigateRequest => NavigateResponse: render::locations,
    TypeHierarchyRequest => TypeHierarchyResponse: render::type_hierarchy,
    InspectionsRequest => InspectionsResponse: render::inspections,
    ReformatRequest => ReformatResponse: render::reformat,
    RefactorRequest => RefactorResponse: render::refactor,
}

impl Rendered for SearchSymbolRequest {
    type Answer = SearchSymbolResponse;
    fn render(&self, answer: &SearchSymbolResponse) -> String {
        render::search(answer, &self.query)
    }
}

impl Rendered for SearchTextRequest {
    type Answer = SearchTextResponse;
    fn render(&self, answer: &SearchTextResponse) -> String {
        render::search_text(answer, &self.pattern)
    }
}

impl Rendered for EditRequest {
    type Answer = EditResponse;
    fn render(&self, answer: &EditResponse) -> String {
        render::edit(self.action, answer)
    }
}
