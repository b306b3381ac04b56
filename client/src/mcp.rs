//! `lean-ctx mcp`: the MCP server agents run, one per session, over stdio (rmcp).
//!
//! It stays thin (ARCHITECTURE.md, `client/`): it answers `initialize` itself at once,
//! warms the daemon in the background, and forwards every tool call to `lean-ctxd`,
//! reconnecting (and respawning it) if the daemon went away. The project root is where
//! the session runs, never a tool parameter; paths are relative to it, and the daemon
//! refuses any that leave it. Answers are compact text; errors are
//! `ERROR: CODE: message` plus the remedy, flagged `isError`.
//!
//! Each call carries the session's random id, so `read` answers by what this session
//! already holds. Tool arguments are read here ([`arguments`]): what does not fit is a
//! tool error `INVALID_TARGET` listing what the tool accepts, never a JSON-RPC error;
//! numbers and booleans sent as strings are accepted, and so are the published tool's
//! spellings ([`published_dialect`]). When the client offers MCP roots, the one holding
//! the working directory (else the first) is the project.

use std::{future::Future, path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use lean_ctx_shared::{
    ErrorCode, LeanError, Paths,
    protocol::{LeanCtxClient, OpenProjectRequest, ReadSession},
    transport::Connection,
};
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt,
    handler::server::{common::schema_for_input, router::tool::ToolRouter},
    model::{
        CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
    },
    schemars::{self, JsonSchema},
    service::NotificationContext,
    tool, tool_handler, tool_router,
    transport::stdio,
};
use serde::{Deserialize, de::DeserializeOwned};
use tarpc::client::RpcError;
use tokio::sync::Mutex;

use lean_ctx_shared::render;

use crate::{
    calls::{Answer, Outcome},
    connect,
    output::rpc_error,
    request::{self, Action, Ctx, Input, RefactorAction},
};

/// How long a tool call waits for the project's first index before it answers
/// `INDEXING` with progress (`LEAN_CTX_MCP_WAIT_MS` overrides): well inside the time
/// clients give a tool call, long enough that most first calls simply succeed.
const DEFAULT_INDEX_WAIT_MS: u32 = 20_000;

/// What the server tells the agent once. Every session pays for this and the tool
/// list before its first call (`a_sessions_fixed_cost_is_at_most_1200_tokens` in
/// client/tests/mcp.rs holds them to 1,200 o200k tokens): the tools say what they do,
/// and what a call needs to know when it goes wrong is in its error's remedy.
const INSTRUCTIONS: &str = "lean-ctx: code intelligence for this project. \
Paths are relative to the project root; lines are 1-based, columns 0-based characters. \
The hashes ctx_read answers guard edits.";

struct State {
    paths: Paths,
    /// The project: where the session runs, or the client's MCP root when it offers
    /// roots (chosen once the client has initialized).
    root: std::sync::RwLock<PathBuf>,
    /// Set once the root is final; tool calls wait for it (briefly).
    settled: tokio::sync::watch::Sender<bool>,
    conn: Mutex<Option<Connection>>,
    wait_ms: u32,
    /// This session's id for `read` (made at start, sent on every call).
    session: String,
}

/// Longest a tool call waits for the client's roots to arrive.
const ROOTS_WAIT: Duration = Duration::from_secs(2);

impl State {
    /// The project root, once settled.
    async fn root(&self) -> PathBuf {
        let mut rx = self.settled.subscribe();
        let _ = tokio::time::timeout(ROOTS_WAIT, rx.wait_for(|s| *s)).await;
        self.root.read().unwrap().clone()
    }

    /// Adopts the client's roots: the innermost one holding the working directory,
    /// else the first; only `file://` roots that are existing directories count, and
    /// none the daemon would refuse as a project (`/`, a system directory, a home
    /// that is no git worktree: `paths::too_broad_root`), said on stderr. The
    /// project is then found from that root as the CLI finds it from its working
    /// directory (`root::resolve`): a client that offers `repo/src` works on `repo`.
    /// (rmcp marks roots deprecated by SEP-2577; the agents in use still offer them.)
    #[allow(deprecated)]
    fn apply_roots(&self, roots: &[rmcp::model::Root]) {
        let cwd = std::env::current_dir().unwrap_or_default();
        let home = lean_ctx_shared::paths::canonical_home();
        let dirs: Vec<PathBuf> = roots
            .iter()
            .filter_map(|r| file_uri_path(&r.uri))
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p.is_dir())
            .filter(
                |p| match lean_ctx_shared::paths::too_broad_root(p, home.as_deref()) {
                    Some(why) => {
                        eprintln!(
                            "lean-ctx mcp: the client's root {} is not used: it is {why}",
                            p.display()
                        );
                        false
                    }
                    None => true,
                },
            )
            .collect();
        let chosen = dirs
            .iter()
            .filter(|d| cwd.starts_with(d))
            .max_by_key(|d| d.as_os_str().len())
            .or(dirs.first());
        if let Some(root) = chosen.and_then(|d| crate::root::resolve(d, None, home.as_deref()).ok())
        {
            *self.root.write().unwrap() = root;
        }
    }

    /// The daemon client, connecting (and spawning the daemon) on first use.
    async fn client(&self) -> Result<LeanCtxClient, LeanError> {
        let mut conn = self.conn.lock().await;
        if let Some(c) = conn.as_ref() {
            return Ok(c.client.clone());
        }
        let root = self.root().await;
        let fresh = connect::connect_or_spawn(&self.paths, "lean-ctx mcp", Some(&root)).await?;
        let client = fresh.client.clone();
        *conn = Some(fresh);
        Ok(client)
    }

    /// Runs `call` against the daemon; if the connection broke (the daemon was
    /// restarted or killed), reconnects once and retries.
    async fn call<T, F, Fut>(&self, call: F) -> Result<T, LeanError>
    where
        F: Fn(LeanCtxClient) -> Fut,
        Fut: Future<Output = Result<Result<T, LeanError>, RpcError>>,
    {
        match call(self.client().await?).await {
            Ok(answer) => answer,
            Err(RpcError::Shutdown | RpcError::Send(_) | RpcError::Channel(_)) => {
                *self.conn.lock().await = None;
                call(self.client().await?).await.map_err(rpc_error)?
            }
            Err(e) => Err(rpc_error(e)),
        }
    }
}

fn context(timeout: Duration) -> tarpc::context::Context {
    let mut ctx = tarpc::context::current();
    ctx.deadline = std::time::Instant::now() + timeout;
    ctx
}

/// The advertised input schema of a tool whose arguments are `P`, compacted: every
/// session pays for it in tokens ([`INSTRUCTIONS`] says how much). What goes says
/// nothing a client needs: `$schema`; `null` in a type (a parameter not `required`
/// may be left out); `default: null`, `format` and `minimum: 0` of a count; and a
/// `oneOf` of string constants becomes an `enum` (the tool's description says what
/// they do).
fn schema<P: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut schema =
        (*schema_for_input::<P>().expect("every tool's parameters have an object schema")).clone();
    schema.remove("$schema");
    let defs = schema.remove("$defs");
    if let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        for prop in props.values_mut().filter_map(|p| p.as_object_mut()) {
            compact(prop, defs.as_ref());
        }
    }
    Arc::new(schema)
}

/// One property of [`schema`], compacted.
fn compact(prop: &mut JsonObject, defs: Option<&serde_json::Value>) {
    use serde_json::Value;
    if let Some(name) = prop
        .get("$ref")
        .and_then(|r| r.as_str())
        .and_then(|r| r.rsplit('/').next())
    {
        let def = defs
            .and_then(|d| d.get(name))
            .cloned()
            .unwrap_or(Value::Null);
        let constants: Option<Vec<Value>> = def["oneOf"]
            .as_array()
            .map(|one| one.iter().filter_map(|c| c.get("const").cloned()).collect());
        if let Some(constants) = constants {
            prop.remove("$ref");
            prop.insert("type".into(), "string".into());
            prop.insert("enum".into(), constants.into());
        }
    }
    if let Some(Value::Array(types)) = prop.get("type") {
        let kept: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if let [one] = kept[..] {
            prop.insert("type".into(), one.clone());
        }
    }
    if prop.get("default") == Some(&Value::Null) {
        prop.remove("default");
    }
    prop.remove("format");
    if prop.get("minimum") == Some(&Value::from(0)) {
        prop.remove("minimum");
    }
}

/// A tool's arguments read as its parameter type `P`, after the published tool's
/// spellings are mapped to ours (`ctx_refactor`: [`published_dialect`]). Arguments
/// that do not fit answer `INVALID_TARGET` naming what was wrong and what the tool
/// accepts: a tool error the agent reads and fixes, never a JSON-RPC protocol error,
/// which clients report as the server failing rather than the call.
fn arguments<P: ToolParams>(mut args: JsonObject) -> Result<P, LeanError> {
    let tool = P::TOOL;
    if tool == "ctx_refactor" || tool == "ctx_navigate" {
        published_dialect(&mut args);
    }
    serde_json::from_value(serde_json::Value::Object(args)).map_err(|e| {
        let schema = schema::<P>();
        let accepted: Vec<&str> = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        LeanError::new(ErrorCode::InvalidTarget, format!("{tool}: {e}")).with_remedy(format!(
            "{tool} accepts: {} (see its input schema)",
            accepted.join(", ")
        ))
    })
}

/// The published lean-ctx `ctx_refactor`'s spellings, accepted so prompts written for
/// it work unchanged (ours stay the schema's): `file` for `path`, `new_text` for
/// `new_body` (or for `text` when inserting), `target_path` for `destination`,
/// `target_parent` for `parent`, and `<action>_preview` / `<action>_apply` for the
/// action with `preview` true or not. A spelling of ours given too wins.
fn published_dialect(args: &mut JsonObject) {
    if let Some(action) = args
        .get("action")
        .and_then(|a| a.as_str())
        .map(str::to_string)
    {
        if let Some(base) = action.strip_suffix("_preview") {
            args.insert("action".into(), base.into());
            args.entry("preview").or_insert(true.into());
        } else if let Some(base) = action.strip_suffix("_apply") {
            args.insert("action".into(), base.into());
        }
    }
    let inserting = args
        .get("action")
        .and_then(|a| a.as_str())
        .is_some_and(|a| a.starts_with("insert_"));
    let renames = [
        ("file", "path"),
        ("new_text", if inserting { "text" } else { "new_body" }),
        ("target_path", "destination"),
        ("target_parent", "parent"),
    ];
    for (theirs, ours) in renames {
        if let Some(v) = args.remove(theirs) {
            args.entry(ours).or_insert(v);
        }
    }
}

/// A tool answer: text, or the rendered error flagged as one, with the error also as
/// structured content (`{"error": {code, message, remedy, details}}`: candidates,
/// progress) for clients that act on it without parsing text.
fn answer(result: Result<Answer, LeanError>) -> Result<CallToolResult, McpError> {
    Ok(match result {
        // A read whose every file failed is the failure it says (its text, the
        // first file's error as the structured one).
        Ok(Answer {
            text,
            outcome: Outcome::Failed(e),
            ..
        }) => failure(text, &e),
        Ok(a) => CallToolResult::success(vec![ContentBlock::text(a.text)]),
        Err(e) => failure(render::error(&e), &e),
    })
}

/// A tool error: `text`, and `e` as structured content.
fn failure(text: String, e: &LeanError) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(text)]);
    r.structured_content = Some(serde_json::json!({"error": {
        "code": e.code,
        "message": e.message,
        "remedy": e.remedy(),
        "details": e.details,
    }}));
    r
}

/// Numbers and booleans as some clients send them: as strings (`"2"`, `"true"`).
mod lenient {
    use serde::{Deserialize, Deserializer, de::Error};

    /// The value as given, or as a string of it; anything else is said plainly
    /// (serde's own words for an untagged enum name no type an agent knows).
    fn parse<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
        T: serde::de::DeserializeOwned + std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        let given = Option::<serde_json::Value>::deserialize(d)?;
        let Some(given) = given.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let wanted = std::any::type_name::<T>();
        let wanted = if wanted == "bool" {
            "true or false"
        } else {
            "a whole number, 0 or more"
        };
        match &given {
            serde_json::Value::String(s) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| D::Error::custom(format!("{given} is not {wanted}"))),
            _ => serde_json::from_value(given.clone())
                .map(Some)
                .map_err(|_| D::Error::custom(format!("{given} is not {wanted}"))),
        }
    }

    pub fn u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        parse(d)
    }

    pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        parse(d)
    }

    /// A list of strings, or one string alone (`"*.toml"` for `["*.toml"]`).
    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum OneOrMany {
            One(String),
            Many(Vec<String>),
        }
        Ok(Option::<OneOrMany>::deserialize(d)?.map(|v| match v {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }))
    }
}

/// A tool's parameters: the tool they belong to, and how they read as the neutral
/// form `request::build` takes (the CLI builds the same form from its flags).
pub trait ToolParams: DeserializeOwned + JsonSchema + 'static {
    /// The tool's name, as listed to clients.
    const TOOL: &'static str;
    /// The action and input this call asks for.
    fn input(self) -> Result<(Action, Input), LeanError>;
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineParams {
    /// Default: the project.
    pub path: Option<String>,
    /// Levels of children (default 1).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    /// Most files (default 200).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
}

impl ToolParams for OutlineParams {
    const TOOL: &'static str = "ctx_outline";

    fn input(self) -> Result<(Action, Input), LeanError> {
        let input = Input::located(self.path, self.depth, self.limit);
        Ok((Action::Outline, input))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TreeParams {
    /// Default: the project.
    pub path: Option<String>,
    /// Levels of directories (default 2).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    /// Most entries (default 400).
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
}

impl ToolParams for TreeParams {
    const TOOL: &'static str = "ctx_tree";

    fn input(self) -> Result<(Action, Input), LeanError> {
        let input = Input::located(self.path, self.depth, self.limit);
        Ok((Action::Tree, input))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchParams {
    #[schemars(extend("enum" = ["symbol", "text", "regex"]))]
    pub action: Option<String>,
    pub query: String,
    /// symbol: function, class, ...
    pub kind: Option<String>,
    /// Under this file or directory.
    pub path: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub ignore_case: Option<bool>,
    /// text, regex: path globs (*.toml, src/**); !glob excludes.
    #[serde(default, deserialize_with = "lenient::strings")]
    pub glob: Option<Vec<String>>,
    /// Lines around each hit.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub context: Option<u32>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub files_only: Option<bool>,
    /// Default 50.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
    /// Where the last answer stopped.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub skip: Option<u32>,
}

/// `ctx_search`'s actions.
const SEARCH_ACTIONS: &[(&str, Action)] = &[
    ("symbol", Action::Search),
    ("text", Action::SearchText),
    ("regex", Action::SearchRegex),
];

/// `action` is this tool's own parameter (the CLI says `--text`/`--regex`), so it is
/// read here.
impl ToolParams for SearchParams {
    const TOOL: &'static str = "ctx_search";

    fn input(self) -> Result<(Action, Input), LeanError> {
        let action = match self.action.as_deref().map(str::trim) {
            None => Action::Search,
            Some(given) => SEARCH_ACTIONS
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(given))
                .map(|(_, a)| *a)
                .ok_or_else(|| {
                    LeanError::new(
                        ErrorCode::InvalidTarget,
                        format!("ctx_search action {given:?} is not one of symbol, text, regex"),
                    )
                    .with_remedy("pass action=symbol, action=text or action=regex")
                })?,
        };
        let input = Input {
            query: Some(self.query),
            kind: self.kind,
            path: self.path,
            limit: self.limit,
            ignore_case: self.ignore_case.unwrap_or(false),
            globs: self.glob.unwrap_or_default(),
            before: self.context,
            after: self.context,
            files_only: self.files_only.unwrap_or(false),
            skip: self.skip,
            ..Input::default()
        };
        Ok((action, input))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadParams {
    /// File.
    pub path: Option<String>,
    /// Several files.
    pub paths: Option<Vec<String>>,
    #[schemars(extend("enum" = ["full", "lines", "symbol", "signatures", "map", "diff"]))]
    pub mode: Option<String>,
    /// lines: first line.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub start_line: Option<u32>,
    /// lines: last line.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub end_line: Option<u32>,
    /// symbol: e.g. Point/new.
    pub name_path: Option<String>,
    /// Resend if already read.
    #[serde(default, deserialize_with = "lenient::bool")]
    pub fresh: Option<bool>,
}

impl ToolParams for ReadParams {
    const TOOL: &'static str = "ctx_read";

    fn input(self) -> Result<(Action, Input), LeanError> {
        let input = Input {
            path: self.path,
            paths: self.paths.unwrap_or_default(),
            mode: self.mode,
            start_line: self.start_line,
            end_line: self.end_line,
            name_path: self.name_path,
            fresh: self.fresh.unwrap_or(false),
            ..Input::default()
        };
        Ok((Action::Read, input))
    }
}

/// An action `tool` was given, read as a [`RefactorAction`]: for `ctx_navigate` one
/// that only reads; for `ctx_refactor` any (the published tool navigated through it
/// too). `advertised` is what the remedy lists.
fn refactor_action(
    tool: &str,
    given: &str,
    advertised: &[&str],
) -> Result<RefactorAction, LeanError> {
    let action =
        serde_json::from_value::<RefactorAction>(serde_json::Value::String(given.trim().into()));
    match action {
        Ok(a) if a.reads_only() || tool == "ctx_refactor" => Ok(a),
        _ => Err(LeanError::new(
            ErrorCode::InvalidTarget,
            format!("{tool} has no action {given:?}"),
        )
        .with_remedy(format!("{tool} actions: {}", advertised.join(", ")))),
    }
}

/// `ctx_navigate`'s actions: every [`RefactorAction`] that only reads.
const NAVIGATE_ACTIONS: &[&str] = &[
    "references",
    "definition",
    "implementations",
    "declaration",
    "type_hierarchy",
    "call_hierarchy",
    "inspections",
];

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateParams {
    #[schemars(extend("enum" = ["references", "definition", "implementations", "declaration", "type_hierarchy", "call_hierarchy", "inspections"]))]
    pub action: String,
    /// File (with name_path: or a directory).
    pub path: Option<String>,
    /// Point/new.
    pub name_path: Option<String>,
    /// 1-based.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub line: Option<u32>,
    /// 0-based.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub column: Option<u32>,
    /// all: libraries too.
    #[schemars(extend("enum" = ["project", "all"]))]
    pub scope: Option<String>,
    #[schemars(extend("enum" = ["supertypes", "subtypes", "incoming", "outgoing"]))]
    pub direction: Option<String>,
    /// call_hierarchy levels.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
    // `symbols_overview` (ctx_outline does it) and inspections' `mode=list` (its
    // sources), as the published tool had them: read, not advertised.
    #[schemars(skip)]
    pub mode: Option<String>,
}

impl ToolParams for NavigateParams {
    const TOOL: &'static str = "ctx_navigate";

    fn input(self) -> Result<(Action, Input), LeanError> {
        let action = refactor_action(Self::TOOL, &self.action, NAVIGATE_ACTIONS)?;
        let input = Input {
            path: self.path,
            name_path: self.name_path,
            line: self.line,
            column: self.column,
            scope: self.scope,
            direction: self.direction,
            mode: self.mode,
            depth: self.depth,
            limit: self.limit,
            ..Input::default()
        };
        Ok((Action::Refactor(action), input))
    }
}

/// `ctx_refactor`'s advertised actions: every [`RefactorAction`] that writes.
const REFACTOR_ACTIONS: &[&str] = &[
    "replace_symbol_body",
    "insert_before_symbol",
    "insert_after_symbol",
    "replace_lines",
    "create_file",
    "reformat",
    "rename",
    "move",
    "safe_delete",
    "inline",
];

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RefactorParams {
    #[schemars(extend("enum" = ["replace_symbol_body", "insert_before_symbol", "insert_after_symbol", "replace_lines", "create_file", "reformat", "rename", "move", "safe_delete", "inline"]))]
    pub action: String,
    /// File.
    pub path: Option<String>,
    /// Point/new, /top_level, add[1].
    pub name_path: Option<String>,
    /// 1-based.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub line: Option<u32>,
    /// Last line.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub end_line: Option<u32>,
    /// The whole new declaration.
    pub new_body: Option<String>,
    /// Text to insert, new lines, a file's content.
    pub text: Option<String>,
    /// Hash a read answered; CONFLICT if stale.
    pub expected_hash: Option<String>,
    /// Despite a syntax error or conflicts.
    #[serde(default, deserialize_with = "lenient::bool")]
    pub force: Option<bool>,
    /// 0-based, of the name.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub column: Option<u32>,
    /// Navigation through ctx_refactor, as the published tool had it: read, never
    /// advertised (ctx_navigate has them).
    #[schemars(skip)]
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    #[schemars(skip)]
    pub scope: Option<String>,
    #[schemars(skip)]
    pub direction: Option<String>,
    #[schemars(skip)]
    pub mode: Option<String>,
    pub new_name: Option<String>,
    /// move: file, directory or package.
    pub destination: Option<String>,
    /// region: line..end_line.
    #[schemars(extend("enum" = ["file", "region", "symbol"]))]
    pub reformat_scope: Option<String>,
    // The JetBrains IDE's own options (README.md, For agents): read, not advertised, so
    // every session does not pay for what only IDE refactorings use.
    #[schemars(skip)]
    #[serde(default, deserialize_with = "lenient::bool")]
    pub search_comments: Option<bool>,
    #[schemars(skip)]
    #[serde(default, deserialize_with = "lenient::bool")]
    pub search_text_occurrences: Option<bool>,
    #[schemars(skip)]
    pub parent: Option<String>,
    #[schemars(skip)]
    #[serde(default, deserialize_with = "lenient::bool")]
    pub propagate: Option<bool>,
    #[schemars(skip)]
    #[serde(default, deserialize_with = "lenient::bool")]
    pub keep_definition: Option<bool>,
    #[schemars(skip)]
    #[serde(default, deserialize_with = "lenient::bool")]
    pub optimize_imports: Option<bool>,
    /// Plan only.
    #[serde(default, deserialize_with = "lenient::bool")]
    pub preview: Option<bool>,
    /// Apply the previewed plan.
    pub plan_hash: Option<String>,
    #[schemars(skip)]
    #[serde(default, deserialize_with = "lenient::u32")]
    pub limit: Option<u32>,
}

impl ToolParams for RefactorParams {
    const TOOL: &'static str = "ctx_refactor";

    fn input(self) -> Result<(Action, Input), LeanError> {
        let action = refactor_action(Self::TOOL, &self.action, REFACTOR_ACTIONS)?;
        let flag = |b: Option<bool>| b.unwrap_or(false);
        let input = Input {
            path: self.path,
            query: None,
            kind: None,
            name_path: self.name_path,
            line: self.line,
            end_line: self.end_line,
            column: self.column,
            depth: self.depth,
            limit: self.limit,
            new_body: self.new_body,
            text: self.text,
            expected_hash: self.expected_hash,
            force: flag(self.force),
            scope: self.scope,
            direction: self.direction,
            mode: self.mode,
            new_name: self.new_name,
            destination: self.destination,
            parent: self.parent,
            preview: flag(self.preview),
            plan_hash: self.plan_hash,
            search_comments: flag(self.search_comments),
            search_text_occurrences: flag(self.search_text_occurrences),
            propagate: flag(self.propagate),
            keep_definition: flag(self.keep_definition),
            reformat_scope: self.reformat_scope,
            optimize_imports: flag(self.optimize_imports),
            ignore_case: false,
            globs: Vec::new(),
            before: None,
            after: None,
            files_only: false,
            skip: None,
            paths: Vec::new(),
            start_line: None,
            fresh: false,
            session: None,
        };
        Ok((Action::Refactor(action), input))
    }
}

#[derive(Clone)]
pub struct LeanCtxMcp {
    state: Arc<State>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl LeanCtxMcp {
    fn new(state: Arc<State>) -> LeanCtxMcp {
        LeanCtxMcp {
            state,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        title = "Outline",
        description = "Symbols of a file or directory as a tree, with signatures.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = schema::<OutlineParams>()
    )]
    async fn ctx_outline(&self, args: JsonObject) -> Result<CallToolResult, McpError> {
        self.tool::<OutlineParams>(args).await
    }

    #[tool(
        title = "Files",
        description = "The project's files as a tree, with counts and kinds per directory.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = schema::<TreeParams>()
    )]
    async fn ctx_tree(&self, args: JsonObject) -> Result<CallToolResult, McpError> {
        self.tool::<TreeParams>(args).await
    }

    #[tool(
        title = "Search",
        description = "Symbols by name, substring, Type/member or Type/ (its members); or lines of text files by text or regex.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = schema::<SearchParams>()
    )]
    async fn ctx_search(&self, args: JsonObject) -> Result<CallToolResult, McpError> {
        self.tool::<SearchParams>(args).await
    }

    #[tool(
        title = "Read",
        description = "Reads files, each with the hash edits pass as expected_hash. A re-read is one line or the diff; long files come in pages.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = schema::<ReadParams>()
    )]
    async fn ctx_read(&self, args: JsonObject) -> Result<CallToolResult, McpError> {
        self.tool::<ReadParams>(args).await
    }

    #[tool(
        title = "Navigate",
        description = "Semantic navigation from a symbol (name_path, or path+line+column); a file's inspections.",
        annotations(read_only_hint = true, open_world_hint = false),
        input_schema = schema::<NavigateParams>()
    )]
    async fn ctx_navigate(&self, args: JsonObject) -> Result<CallToolResult, McpError> {
        self.tool::<NavigateParams>(args).await
    }

    #[tool(
        title = "Edit and refactor",
        description = "Writes guarded by expected_hash: a symbol (name_path, or path+line), lines, a new file. rename previews, then applies with plan_hash; move, safe_delete, inline need the JetBrains IDE.",
        // Not read-only, not idempotent: the spec's defaults, left out.
        annotations(destructive_hint = true, open_world_hint = false),
        input_schema = schema::<RefactorParams>()
    )]
    async fn ctx_refactor(&self, args: JsonObject) -> Result<CallToolResult, McpError> {
        self.tool::<RefactorParams>(args).await
    }
}

impl LeanCtxMcp {
    /// One tool call: its arguments read as `P`, then [`Self::run`]. Arguments that do
    /// not fit answer as a tool error ([`arguments`]).
    async fn tool<P: ToolParams>(&self, args: JsonObject) -> Result<CallToolResult, McpError> {
        match arguments::<P>(args).and_then(P::input) {
            Ok((action, input)) => self.run(action, input).await,
            Err(e) => answer(Err(e)),
        }
    }

    /// Builds the request (`request::build`, as the CLI does), sends it and answers
    /// its text.
    async fn run(&self, action: Action, input: Input) -> Result<CallToolResult, McpError> {
        let s = &self.state;
        let ctx = Ctx {
            root: s.root().await,
            wait_ms: s.wait_ms,
            cwd: None,
            session: Some(ReadSession {
                id: s.session.clone(),
                ends_with_connection: true,
            }),
        };
        let call = match request::build(action, input, &ctx) {
            Ok(call) => call,
            Err(e) => return answer(Err(e)),
        };
        let timeout = call.timeout();
        answer(
            s.call(|c| {
                let call = call.clone();
                async move { call.send(&c, context(timeout)).await }
            })
            .await,
        )
    }
}

/// The `action` values `ctx_navigate` and `ctx_refactor` advertise, with the tool.
#[cfg(test)]
pub(crate) fn advertised_actions() -> Vec<(String, String)> {
    LeanCtxMcp::tool_router()
        .list_all()
        .into_iter()
        .filter(|t| t.name == "ctx_navigate" || t.name == "ctx_refactor")
        .flat_map(|t| {
            let schema = serde_json::Value::Object((*t.input_schema).clone());
            let actions = schema["properties"]["action"]["enum"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let tool = t.name.to_string();
            actions
                .into_iter()
                .map(move |a| (tool.clone(), a.as_str().unwrap_or_default().to_string()))
        })
        .collect()
}

/// The path of a `file://` URI (percent-decoded); `None` for other schemes.
fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LeanCtxMcp {
    /// Once the client is initialized: take its roots, if it offers them.
    #[allow(deprecated)]
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let offers_roots = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if offers_roots {
            match context.peer.list_roots().await {
                Ok(result) => self.state.apply_roots(&result.roots),
                Err(e) => {
                    eprintln!("lean-ctx mcp: the client offered roots but did not list them: {e}")
                }
            }
        }
        self.state.settled.send_replace(true);
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "lean-ctx",
                lean_ctx_shared::protocol::VERSION,
            ))
            .with_instructions(INSTRUCTIONS)
    }
}

/// A random id for this session's reads: 128 bits from the kernel, or (where
/// `/dev/urandom` cannot be read) the pid and the time, which are unique on this
/// machine too.
fn session_id() -> String {
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if random.is_err() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        bytes[..4].copy_from_slice(&std::process::id().to_le_bytes());
        bytes[4..].copy_from_slice(&now.as_nanos().to_le_bytes()[..12]);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("mcp-{hex}")
}

/// Serves MCP on stdin/stdout until the client goes away.
pub async fn serve(paths: Paths, root: PathBuf) -> Result<ExitCode, LeanError> {
    let wait_ms = std::env::var("LEAN_CTX_MCP_WAIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_INDEX_WAIT_MS);
    let state = Arc::new(State {
        paths,
        root: std::sync::RwLock::new(root),
        settled: tokio::sync::watch::Sender::new(false),
        conn: Mutex::new(None),
        wait_ms,
        session: session_id(),
    });
    // Warm the daemon and start the project's index while the client initializes;
    // failures surface on the first tool call instead.
    let warm = state.clone();
    tokio::spawn(async move {
        let root = warm.root().await;
        if let Err(e) = warm
            .call(|c| {
                let root = root.clone();
                async move {
                    c.open_project(
                        context(Duration::from_secs(10)),
                        OpenProjectRequest { root },
                    )
                    .await
                }
            })
            .await
        {
            eprintln!("lean-ctx mcp: {}", render::error(&e));
        }
    });
    let running = LeanCtxMcp::new(state)
        .serve(stdio())
        .await
        .map_err(|e| LeanError::internal(format!("MCP initialization failed: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| LeanError::internal(format!("MCP session failed: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn navigate_advertises_the_actions_that_read_and_refactor_those_that_write() {
        let advertised = advertised_actions();
        for (tool, action) in &advertised {
            let parsed: RefactorAction =
                serde_json::from_value(serde_json::Value::String(action.clone())).unwrap();
            assert_eq!(
                parsed.reads_only(),
                tool == "ctx_navigate",
                "{tool} {action}"
            );
        }
        // Every action once, but symbols_overview: ctx_outline does it (both tools
        // still take it, as the published tool had it).
        assert_eq!(advertised.len(), 17, "{advertised:?}");
        assert!(!advertised.iter().any(|(_, a)| a == "symbols_overview"));
        // Honest annotations: only the tool that writes says so.
        for t in LeanCtxMcp::tool_router().list_all() {
            let a = t.annotations.as_ref().expect("annotated");
            let writes = t.name == "ctx_refactor";
            assert_eq!(a.read_only_hint.unwrap_or(false), !writes, "{}", t.name);
            assert_eq!(a.destructive_hint, writes.then_some(true), "{}", t.name);
            assert_eq!(a.open_world_hint, Some(false), "{}", t.name);
            assert!(t.title.is_some(), "{}", t.name);
        }
    }

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/a/my%20proj"),
            Some(PathBuf::from("/home/a/my proj"))
        );
        assert_eq!(
            file_uri_path("file://localhost/srv/x"),
            Some(PathBuf::from("/srv/x"))
        );
        assert_eq!(
            file_uri_path("file:///t/%C3%A4%zz"),
            Some(PathBuf::from("/t/ä%zz"))
        );
        assert_eq!(file_uri_path("https://example.com/x"), None);
    }
}
