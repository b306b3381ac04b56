//! The requests both front doors send (the CLI's `outline`, `tree`, `search`, `read`
//! and `refactor` verbs and the MCP tools `ctx_outline`, `ctx_tree`, `ctx_search`,
//! `ctx_read`, `ctx_refactor`): one enum,
//! built by `request::build` alone, with one deadline and one rendering per request,
//! so the two can never send or answer the same action differently.

use std::time::Duration;

use lean_ctx_shared::{
    LeanError,
    protocol::{
        CallHierarchyRequest, CallHierarchyResponse, EditRequest, EditResponse, FileRead,
        InspectionsRequest, InspectionsResponse, LeanCtxClient, NavigateRequest, NavigateResponse,
        Operation, OutlineRequest, OutlineResponse, ReadContent, ReadRequest, ReadResponse,
        RefactorRequest, RefactorResponse, ReformatRequest, ReformatResponse, SearchSymbolRequest,
        SearchSymbolResponse, SearchTextRequest, SearchTextResponse, SymbolsOverviewRequest,
        SymbolsOverviewResponse, TreeRequest, TreeResponse, TypeHierarchyRequest,
        TypeHierarchyResponse,
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
                        .map(|r| answer(req.render(&r), req.outcome(&r), r)),)*
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
    pub outcome: Outcome,
}

/// What an answer amounts to, for exit codes and `isError`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// What was asked for.
    Found,
    /// A search that found nothing (grep's exit code 1; no error to an agent).
    Nothing,
    /// Every file of a read failed: the first one's error (a batch where some
    /// files answered is no failure, each failure its own entry).
    Failed(LeanError),
}

fn answer<T: serde::Serialize>(text: String, outcome: Outcome, resp: T) -> Answer {
    Answer {
        text,
        outcome,
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
    fn outcome(&self, _answer: &Self::Answer) -> Outcome {
        Outcome::Found
    }
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
    SymbolsOverviewRequest => SymbolsOverviewResponse: render::symbols_overview,
    NavigateRequest => NavigateResponse: render::locations,
    TypeHierarchyRequest => TypeHierarchyResponse: render::type_hierarchy,
    CallHierarchyRequest => CallHierarchyResponse: render::call_hierarchy,
    InspectionsRequest => InspectionsResponse: render::inspections,
    ReformatRequest => ReformatResponse: render::reformat,
    RefactorRequest => RefactorResponse: render::refactor,
}

impl Rendered for ReadRequest {
    type Answer = ReadResponse;
    fn render(&self, answer: &ReadResponse) -> String {
        render::read(render::Asked::of(self), answer)
    }
    fn outcome(&self, answer: &ReadResponse) -> Outcome {
        let failed = |f: &FileRead| match &f.content {
            ReadContent::Failed(e) => Some(e.clone()),
            _ => None,
        };
        match answer.files.iter().map(failed).collect::<Option<Vec<_>>>() {
            Some(errors) => errors
                .into_iter()
                .next()
                .map_or(Outcome::Found, Outcome::Failed),
            None => Outcome::Found,
        }
    }
}

impl Rendered for SearchSymbolRequest {
    type Answer = SearchSymbolResponse;
    fn render(&self, answer: &SearchSymbolResponse) -> String {
        render::search(answer, &self.query, self.skip)
    }
    fn outcome(&self, answer: &SearchSymbolResponse) -> Outcome {
        if answer.total == 0 {
            Outcome::Nothing
        } else {
            Outcome::Found
        }
    }
}

impl Rendered for SearchTextRequest {
    type Answer = SearchTextResponse;
    fn render(&self, answer: &SearchTextResponse) -> String {
        render::search_text(answer, &self.pattern, self.skip)
    }
    fn outcome(&self, answer: &SearchTextResponse) -> Outcome {
        if answer.total == 0 {
            Outcome::Nothing
        } else {
            Outcome::Found
        }
    }
}

impl Rendered for EditRequest {
    type Answer = EditResponse;
    fn render(&self, answer: &EditResponse) -> String {
        render::edit(self.action, answer)
    }
}
