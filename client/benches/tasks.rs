//! A dozen agent tasks on three pinned real code bases, each done twice to the same
//! verified end state: once with an agent's built-in tools, once through `lean-ctx
//! mcp` (a real MCP session over stdio, JSON-RPC as any client speaks it), counting
//! o200k tokens the agent reads (tool results) and sends (tool arguments), calls and
//! wall time, side by side in one run; the fixed cost of a lean-ctx session (its
//! instructions and tool list) apart, with the number of tasks that pays it back.
//!
//! The built-in tools are modelled on a coding agent's: `Read` prints numbered lines
//! (`cat -n`) in pages of 2,000 lines, and a careful agent reads only the page that
//! holds what `Grep` found (or every page, to learn a file's structure); `Grep` is
//! ripgrep's `path:line:text`; `Edit` sends the old and the new string and reads a
//! one-line confirmation. lean-ctx reads what its tools answer and sends their
//! arguments. The corpora: syn 2.0.111 (the Rust bench corpus), Django 5.1.4 and
//! rxjs 7.8.1 (the per-language corpora), each copied twice and made a git repository.
//!
//! Run: `bash client/benches/fetch-corpus.sh && bash client/benches/fetch-lang-corpora.sh && cargo build --release --workspace --bins && cargo bench -p lean-ctx-client --bench tasks`
//! (needs `rg`).

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, Stdio},
    time::Instant,
};

use lean_ctx_testkit::{TestEnv, git};
use serde_json::{Value, json};

/// Lines a built-in `Read` returns at once.
const PAGE: usize = 2000;

fn main() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let corpora = [
        (
            "syn 2.0.111 (Rust)",
            workspace.join("target/bench-corpus/repo/vendor/syn-2.0.111"),
        ),
        (
            "Django 5.1.4 (Python)",
            workspace.join("target/bench-corpus-langs/python/Django-5.1.4"),
        ),
        (
            "rxjs 7.8.1 (TypeScript)",
            workspace.join("target/bench-corpus-langs/typescript/rxjs/package"),
        ),
    ];
    let env = TestEnv::with_shim(env!("CARGO_BIN_EXE_lean-ctx"));
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = |s: &str| bpe.encode_ordinary(s).len();
    let mut rows: Vec<Row> = Vec::new();
    let mut fixed = 0;
    for (corpus, source) in &corpora {
        assert!(
            source.is_dir(),
            "{} is missing: run the fetch scripts (see the module doc)",
            source.display()
        );
        let ours = copy(&env, source, "lean");
        let theirs = copy(&env, source, "builtin");
        let mut mcp = Mcp::start(&env, &ours);
        fixed = mcp.fixed_cost(&tokens);
        // The first call waits for the project's first index: a session's start, not
        // a task's cost.
        mcp.call("ctx_tree", json!({"depth": 1}));
        for task in tasks(corpus) {
            let mut lean = Tally::default();
            let t = Instant::now();
            (task.lean)(&mut |tool, args| {
                let answer = mcp.call(tool, args.clone());
                lean.add(tokens(&answer), tokens(&args.to_string()));
                answer
            });
            lean.ms = t.elapsed().as_secs_f64() * 1e3;
            let mut builtin = Tally::default();
            let t = Instant::now();
            (task.builtin)(&theirs, &mut |read, sent| {
                builtin.add(tokens(read), tokens(sent))
            });
            builtin.ms = t.elapsed().as_secs_f64() * 1e3;
            (task.check)(&ours);
            (task.check)(&theirs);
            rows.push(Row {
                corpus,
                task: task.name,
                lean,
                builtin,
            });
        }
        mcp.stop();
    }
    report(&rows, fixed);
}

/// `source` copied to `<env>/<label>/<name>`, a git repository of its own.
fn copy(env: &TestEnv, source: &Path, label: &str) -> PathBuf {
    let to = env.dir().join(label).join(source.file_name().unwrap());
    lean_ctx_testkit::copy_dir(source, &to);
    git(&to, &["init", "-q"]);
    to
}

/// What one side of one task cost.
#[derive(Debug, Default)]
struct Tally {
    read: usize,
    sent: usize,
    calls: usize,
    ms: f64,
}

impl Tally {
    fn add(&mut self, read: usize, sent: usize) {
        self.read += read;
        self.sent += sent;
        self.calls += 1;
    }
}

struct Row {
    corpus: &'static str,
    task: &'static str,
    lean: Tally,
    builtin: Tally,
}

/// A call through lean-ctx: the tool, its arguments; the answer's text.
type Call<'a> = dyn FnMut(&str, Value) -> String + 'a;
/// A built-in tool's use: what it returns to the agent, what the agent sent.
type Use<'a> = dyn FnMut(&str, &str) + 'a;
/// A task done with the built-in tools in the copy at the path.
type BuiltIn = Box<dyn Fn(&Path, &mut Use<'_>)>;

struct Task {
    name: &'static str,
    lean: Box<dyn Fn(&mut Call<'_>)>,
    builtin: BuiltIn,
    /// The end state both sides must reach, checked on each copy.
    check: Box<dyn Fn(&Path)>,
}

/// The first line number in ripgrep's output (`path:N:text`, or `N:text` for one
/// file) or a text search's (`path:N  text`, or `  N  text` under its path).
fn first_line(answer: &str) -> usize {
    let number = |t: &str| -> Option<usize> {
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    answer
        .lines()
        .find_map(|l| l.trim_start().split(':').take(2).find_map(number))
        .unwrap_or_else(|| panic!("no line number in {answer}"))
}

/// The hash a read answered (`hash H`).
fn hash(answer: &str) -> String {
    let at = answer.find("hash ").expect("a hash") + 5;
    answer[at..at + 16].to_string()
}

/// Built-in `Grep`: ripgrep's `path:line:text` under `root`.
fn grep(root: &Path, args: &[&str], use_: &mut Use<'_>) -> String {
    let out = Command::new("rg")
        .args(["-n", "--no-heading"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("rg runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    use_(&text, &args.join(" "));
    text
}

/// Built-in `Read` of the page of `path` that holds `line` (every page with `None`).
fn read(root: &Path, path: &str, line: Option<usize>, use_: &mut Use<'_>) -> String {
    let text = std::fs::read_to_string(root.join(path)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let pages: Vec<usize> = match line {
        Some(n) => vec![(n - 1) / PAGE],
        None => (0..lines.len().div_ceil(PAGE)).collect(),
    };
    let mut all = String::new();
    for page in pages {
        let shown: String = lines
            .iter()
            .enumerate()
            .skip(page * PAGE)
            .take(PAGE)
            .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
            .collect();
        use_(&shown, path);
        all.push_str(&shown);
    }
    all
}

/// Built-in `Edit`: replaces `old` (once) by `new` in `path`.
fn edit(root: &Path, path: &str, old: &str, new: &str, use_: &mut Use<'_>) {
    let file = root.join(path);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches(old).count(), 1, "{old:?} once in {path}");
    std::fs::write(&file, text.replacen(old, new, 1)).unwrap();
    use_(
        &format!("The file {path} has been updated."),
        &format!("{path}{old}{new}"),
    );
}

/// `path` holds `text`.
fn holds(path: &'static str, text: &'static str) -> Box<dyn Fn(&Path)> {
    Box::new(move |root: &Path| {
        let now = std::fs::read_to_string(root.join(path)).unwrap();
        assert!(now.contains(text), "{path} lacks {text:?}");
    })
}

fn nothing() -> Box<dyn Fn(&Path)> {
    Box::new(|_: &Path| {})
}

/// Finds a symbol and reads it: lean-ctx's symbol search then the symbol; grep for
/// its definition then the page around it.
fn read_symbol(
    name: &'static str,
    query: &'static str,
    pattern: &'static str,
    (scope, glob): (&'static str, &'static str),
) -> Task {
    Task {
        name,
        // The symbol by name, found in the scope: one call.
        lean: Box::new(move |call| {
            call("ctx_read", json!({"path": scope, "name_path": query}));
        }),
        builtin: Box::new(move |root, use_| {
            let found = grep(root, &[pattern, "-g", glob, scope], use_);
            let path = found.split(':').next().unwrap().to_string();
            read(root, &path, Some(first_line(&found)), use_);
        }),
        check: nothing(),
    }
}

/// Every use of a name: a text search with room for all of them; ripgrep.
fn uses(name: &'static str, text: &'static str, glob: &'static str) -> Task {
    Task {
        name,
        lean: Box::new(move |call| {
            call(
                "ctx_search",
                json!({"action": "text", "query": text, "glob": glob, "limit": 1000}),
            );
        }),
        builtin: Box::new(move |root, use_| {
            grep(root, &["-F", text, "-g", glob], use_);
        }),
        check: nothing(),
    }
}

/// A line added after `line_text` (a function's first line) in `path`: lean-ctx reads
/// the symbol (found by search) and replaces that one line under the symbol's hash;
/// the built-in way greps, reads the page and edits.
fn add_line(
    name: &'static str,
    path: &'static str,
    query: &'static str,
    line_text: &'static str,
    added: &'static str,
) -> Task {
    Task {
        name,
        lean: Box::new(move |call| {
            // Fresh: each task stands alone, though this session read it before.
            let symbol = call(
                "ctx_read",
                json!({"path": path, "name_path": query, "fresh": true}),
            );
            let line = symbol
                .lines()
                .find(|l| l.ends_with(line_text.trim_start()))
                .and_then(|l| l.split_whitespace().next()?.parse::<usize>().ok())
                .expect("the function's first line");
            call(
                "ctx_refactor",
                json!({"action": "replace_lines", "path": path, "line": line,
                       "text": format!("{line_text}\n{added}"), "expected_hash": hash(&symbol)}),
            );
        }),
        builtin: Box::new(move |root, use_| {
            let found = grep(root, &["-F", line_text.trim_start(), path], use_);
            read(root, path, Some(first_line(&found)), use_);
            edit(
                root,
                path,
                line_text,
                &format!("{line_text}\n{added}"),
                use_,
            );
        }),
        check: holds(path, added),
    }
}

/// A file's structure: lean-ctx's outline; the built-in way reads it whole.
fn structure(name: &'static str, path: &'static str) -> Task {
    Task {
        name,
        lean: Box::new(move |call| {
            call("ctx_outline", json!({"path": path}));
        }),
        builtin: Box::new(move |root, use_| {
            read(root, path, None, use_);
        }),
        check: nothing(),
    }
}

/// A configuration value changed: found by a text search with a glob, a one-line
/// window read for its hash, the line replaced; grep, the page, an edit.
fn set_value(name: &'static str, path: &'static str, old: &'static str, new: &'static str) -> Task {
    Task {
        name,
        lean: Box::new(move |call| {
            let found = call(
                "ctx_search",
                json!({"action": "text", "query": old, "glob": path}),
            );
            let line = first_line(&found);
            let window = call(
                "ctx_read",
                json!({"path": path, "start_line": line, "end_line": line}),
            );
            call(
                "ctx_refactor",
                json!({"action": "replace_lines", "path": path, "line": line,
                       "text": new, "expected_hash": hash(&window)}),
            );
        }),
        builtin: Box::new(move |root, use_| {
            let found = grep(root, &["-F", old, "-g", path], use_);
            read(root, path, Some(first_line(&found)), use_);
            edit(root, path, old, new, use_);
        }),
        check: holds(path, new),
    }
}

fn tasks(corpus: &str) -> Vec<Task> {
    match corpus.split_whitespace().next().unwrap() {
        "syn" => vec![
            read_symbol(
                "read a struct",
                "TokenBuffer",
                "pub struct TokenBuffer",
                ("src", "*.rs"),
            ),
            uses("uses of a function", "peek_precedence(", "*.rs"),
            add_line(
                "add a line in a function",
                "src/expr.rs",
                "peek_precedence",
                "    fn peek_precedence(input: ParseStream) -> Precedence {",
                "        // Checked by the agent.",
            ),
            structure("a large file's structure", "src/expr.rs"),
        ],
        "Django" => vec![
            read_symbol(
                "read a method",
                "QuerySet/filter",
                "    def filter\\(self",
                ("django", "query.py"),
            ),
            uses("uses of a method", "get_queryset(", "*.py"),
            add_line(
                "add a line in a method",
                "django/db/models/query.py",
                "QuerySet/filter",
                "    def filter(self, *args, **kwargs):",
                "        # Checked by the agent.",
            ),
            set_value(
                "change a setting",
                "django/conf/global_settings.py",
                "FILE_UPLOAD_MAX_MEMORY_SIZE = 2621440  # i.e. 2.5 MB",
                "FILE_UPLOAD_MAX_MEMORY_SIZE = 5242880  # i.e. 5 MB",
            ),
        ],
        _ => vec![
            read_symbol(
                "read a function",
                "isFunction",
                "export function isFunction",
                ("src", "*.ts"),
            ),
            uses("uses of a function", "operate(", "*.ts"),
            add_line(
                "add a line in a function",
                "src/internal/util/isFunction.ts",
                "isFunction",
                "export function isFunction(value: any): value is (...args: any[]) => any {",
                "  // Checked by the agent.",
            ),
            structure("a module's structure", "src/internal/Observable.ts"),
        ],
    }
}

/// A `lean-ctx mcp` session over stdio, spoken as JSON-RPC lines.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
    tools: Value,
    instructions: String,
}

impl Mcp {
    fn start(env: &TestEnv, root: &Path) -> Mcp {
        let mut child = env
            .shim()
            .arg("mcp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Mcp {
            child,
            stdin,
            stdout,
            next: 0,
            tools: Value::Null,
            instructions: String::new(),
        };
        let init = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "tasks-bench", "version": "1"}}),
        );
        mcp.instructions = init["instructions"].as_str().unwrap_or("").to_string();
        mcp.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp.tools = mcp.request("tools/list", json!({}))["tools"].clone();
        mcp
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server hung up"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            // A response, not a request of the server's that happens to share the id.
            if v["id"] == id && v.get("method").is_none() {
                return v["result"].clone();
            }
        }
    }

    /// A tool call's text; a tool error fails the bench (no task may fail).
    fn call(&mut self, tool: &str, args: Value) -> String {
        let result = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert_ne!(result["isError"], true, "{tool} {args}: {text}");
        text
    }

    /// What the session paid before its first call: instructions and tool list (as
    /// compact JSON, the form clients pass on).
    fn fixed_cost(&self, tokens: &dyn Fn(&str) -> usize) -> usize {
        tokens(&self.instructions)
            + self
                .tools
                .as_array()
                .unwrap()
                .iter()
                .map(|t| tokens(&t.to_string()))
                .sum::<usize>()
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

fn report(rows: &[Row], fixed: usize) {
    println!(
        "{:<24} {:<28} {:>9} {:>9} {:>6} {:>7} {:>9} {:>9} {:>6} {:>7} {:>7}",
        "corpus",
        "task",
        "read:in",
        "sent:in",
        "calls",
        "ms",
        "read:lc",
        "sent:lc",
        "calls",
        "ms",
        "ratio"
    );
    let (mut total_in, mut total_lc) = (0, 0);
    let mut ratios = Vec::new();
    for r in rows {
        let (a, b) = (r.builtin.read + r.builtin.sent, r.lean.read + r.lean.sent);
        total_in += a;
        total_lc += b;
        let ratio = a as f64 / b as f64;
        ratios.push(ratio);
        println!(
            "{:<24} {:<28} {:>9} {:>9} {:>6} {:>7.0} {:>9} {:>9} {:>6} {:>7.0} {:>6.1}x",
            r.corpus,
            r.task,
            r.builtin.read,
            r.builtin.sent,
            r.builtin.calls,
            r.builtin.ms,
            r.lean.read,
            r.lean.sent,
            r.lean.calls,
            r.lean.ms,
            ratio
        );
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    let worse = rows.iter().filter(|r| r.lean.read > r.builtin.read).count();
    println!(
        "total: built-in {total_in}, lean-ctx {total_lc} tokens read and sent: {:.1}x fewer; median task {median:.1}x; tasks where lean-ctx read more: {worse}",
        total_in as f64 / total_lc as f64
    );
    let saved_per_task = (total_in.saturating_sub(total_lc)) as f64 / rows.len() as f64;
    println!(
        "fixed cost of a lean-ctx session: {fixed} tokens; at {saved_per_task:.0} saved per task on average, it is paid back within {:.1} tasks",
        fixed as f64 / saved_per_task
    );
}
