//! The language-server and IDE requests both front doors send (the CLI's `refactor`
//! verbs and the MCP `ctx_refactor` tool): one enum, one dispatch, one rendering, so
//! the two can never answer the same action differently.

use lean_ctx_shared::{
    LeanError,
    protocol::{
        InspectionsRequest, LeanCtxClient, NavigateRequest, RefactorRequest, ReformatRequest,
        TypeHierarchyRequest,
    },
    render,
};
use tarpc::{client::RpcError, context::Context};

/// One request, built from command-line arguments or tool parameters.
#[derive(Clone, Debug)]
pub enum Call {
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

impl Call {
    /// Sends the call; the outer error is the transport's, the inner the daemon's.
    pub async fn send(
        &self,
        client: &LeanCtxClient,
        ctx: Context,
    ) -> Result<Result<Answer, LeanError>, RpcError> {
        Ok(match self.clone() {
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
