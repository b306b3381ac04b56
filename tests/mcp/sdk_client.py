"""The real Python MCP SDK as a client of `lean-ctx mcp`, over stdio.

Run by client/tests/mcp.rs as `python3 sdk_client.py <lean-ctx> <project dir>` with
the test's LEAN_CTX_* environment; exits non-zero (with the failed assertion) on any
deviation. Covers: initialize answered at once while nothing runs yet, tools/list with
valid JSON Schemas, a call issued while the daemon is still indexing (INDEXING with
progress, never an empty answer), every tool on a fixture project, chained edits by
hash, catalog errors, a session that outlives a `kill -9` of the daemon, and a
client whose MCP roots name the project.

`python3 sdk_client.py --language-servers <lean-ctx> <python project>` runs the
language-server actions of ctx_refactor instead, against a real pylsp;
`--idle` a session that sits idle until the daemon closes its connection, then calls;
`--broad-roots` a client offering `/` as its root from a session started at `/`;
`--fixed-cost` prints what every session pays before its first call, as the client
received it: the server's instructions and its tool list, as JSON.
"""

import asyncio
import glob
import os
import re
import signal
import sys
import time

from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text(result):
    return "\n".join(c.text for c in result.content)


async def call(session, tool, args):
    result = await session.call_tool(tool, args)
    return result.is_error, text(result)


async def daemonless(shim, project):
    """`initialize` and the tool list never wait for the daemon: with one that cannot
    start at all, the session still initializes and lists its tools, and a call is a
    tool error (isError), not a protocol error."""
    env = dict(os.environ, LEAN_CTX_DAEMON_BIN="/bin/false")
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "lean-ctx", init.server_info
            tools = {t.name for t in (await session.list_tools()).tools}
            assert "ctx_outline" in tools, tools
            is_error, body = await call(session, "ctx_outline", {"path": "src/lib.rs"})
            assert is_error and "ERROR" in body and "lean-ctxd" in body, body


async def fixed_cost(shim, project):
    """The instructions and the tool list, printed as one JSON object."""
    import json

    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = (await session.list_tools()).tools
            listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
            print(json.dumps({"instructions": init.instructions or "", "tools": listed}))


async def mixed_repository(shim, project):
    """An agent's change touching code and configuration through lean-ctx alone, on a
    repository that mixes Rust, TOML, YAML, Markdown and a shell script (written by
    client/tests/mcp.rs): tree, search with a glob and context, read a config file,
    edit a line range under the file's hash, create a file, re-read (unchanged),
    a stale edit (CONFLICT with what changed), a 1 MB file in pages, and failures
    that are failures."""
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            deadline = time.monotonic() + 120
            while True:
                is_error, tree = await call(session, "ctx_tree", {})
                if not is_error or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert not is_error, tree
            # The changelog is over index.max_file_bytes: named, and still read in pages.
            for kind in ("toml 1", "yaml 1", "markdown 1", "bash 1", "rust 1", "oversized 1"):
                assert kind in tree, (kind, tree)

            is_error, body = await call(session, "ctx_search", {"action": "text", "query": "serde", "glob": ["*.toml"], "context": 1})
            # Grouped under the path, or grep's path:LINE layout, whichever is shorter.
            assert not is_error and body.startswith("Cargo.toml"), body
            assert "[dependencies]" in body and "serde = " in body and "README" not in body, body
            is_error, body = await call(session, "ctx_search", {"action": "text", "query": "serde", "files_only": True})
            assert not is_error and "Cargo.toml  " in body and "src/lib.rs  " in body, body
            is_error, body = await call(session, "ctx_search", {"action": "text", "query": "no such text anywhere"})
            # Nothing found is an answer, not an error; it says what was searched.
            assert not is_error and "files searched" in body, body

            is_error, body = await call(session, "ctx_read", {"path": "Cargo.toml"})
            assert not is_error, body
            file_hash = re.search(r"hash ([0-9a-f]{16})", body).group(1)
            line = next(l for l in body.splitlines() if "serde = " in l)
            number = int(line.split()[0])
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_lines", "path": "Cargo.toml", "line": number, "text": 'serde = "1.0.200"', "expected_hash": file_hash})
            assert not is_error and re.fullmatch(r"line \d+ written, file hash [0-9a-f]{16}", body), body
            # The code that uses it, by the symbol's hash from a map.
            is_error, body = await call(session, "ctx_read", {"path": "src/lib.rs", "mode": "symbol", "name_path": "version"})
            assert not is_error, body
            symbol_hash = re.search(r"hash ([0-9a-f]{16})", body).group(1)
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_lines", "path": "src/lib.rs", "line": 2, "text": '    "1.0.200"', "expected_hash": symbol_hash})
            assert not is_error, body
            is_error, body = await call(session, "ctx_refactor", {"action": "create_file", "path": "docs/upgrade.md", "text": "# Upgrade\n\nserde 1.0.200.\n"})
            assert not is_error and body.startswith("lines 1-3 written, file hash "), body
            with open(os.path.join(project, "docs/upgrade.md")) as f:
                assert f.read() == "# Upgrade\n\nserde 1.0.200.\n"

            # What the session wrote counts as read.
            is_error, body = await call(session, "ctx_read", {"path": "Cargo.toml"})
            assert not is_error and "unchanged since your read" in body, body
            is_error, body = await call(session, "ctx_read", {"path": "docs/upgrade.md"})
            assert not is_error and "unchanged since your read" in body, body
            # The first hash is stale now: CONFLICT, with what changed.
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_lines", "path": "Cargo.toml", "line": 1, "text": "[package]", "expected_hash": file_hash})
            assert is_error and body.startswith("ERROR: CONFLICT:") and '+serde = "1.0.200"' in body, body
            result = await session.call_tool("ctx_refactor", {"action": "create_file", "path": "docs/upgrade.md", "text": "x"})
            assert result.is_error and result.structured_content["error"]["code"] == "CONFLICT", result

            # A 1 MB file comes in pages, each under a client's 25k-token limit,
            # continuing exactly where the last stopped.
            start, seen = 1, 0
            while True:
                is_error, body = await call(session, "ctx_read", {"path": "CHANGELOG.md", "start_line": start, "fresh": True})
                assert not is_error and len(body) < 100_000, len(body)
                lines = [l for l in body.splitlines()[1:] if not l.startswith("…")]
                assert int(lines[0].split()[0]) == start, lines[0]
                seen += len(lines)
                more = re.search(r"go on with start_line=(\d+)$", body)
                if not more:
                    break
                start = int(more.group(1))
            assert seen == 20_000, seen

            # Failures are failures: isError, with code and remedy as structured content.
            for args in ({"path": "../outside.txt"}, {"path": "missing.toml"}, {"path": "ci.yml", "start_line": 9, "end_line": 2}, {"path": "src/lib.rs", "mode": "symbol", "name_path": "nothing"}):
                result = await session.call_tool("ctx_read", args)
                error = result.structured_content["error"]
                assert result.is_error and error["code"] and error["remedy"], (args, result)
            result = await session.call_tool("ctx_read", {"start_line": -1, "path": "ci.yml"})
            assert result.is_error and "start_line" in text(result) and "Loose" not in text(result), text(result)
    print("ok")


async def main(shim, project):
    # First, while no daemon runs for this environment.
    await daemonless(shim, project)
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "lean-ctx", init.server_info
            assert "ctx_read" in (init.instructions or "")

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {"ctx_outline", "ctx_tree", "ctx_search", "ctx_read", "ctx_navigate", "ctx_refactor"}, set(tools)
            for read_only in ("ctx_outline", "ctx_tree", "ctx_search", "ctx_read", "ctx_navigate"):
                assert tools[read_only].annotations.read_only_hint is True, tools[read_only].annotations
            # Only the tool that writes says it may destroy; nothing reaches outside.
            assert tools["ctx_refactor"].annotations.destructive_hint is True
            assert not tools["ctx_refactor"].annotations.read_only_hint
            for tool in tools.values():
                Draft202012Validator.check_schema(tool.input_schema)
                assert tool.description and tool.title, tool.name
                assert tool.annotations.open_world_hint is False, tool.name
                # Portable: no property typed [T, "null"] (clients on the OpenAPI
                # subset reject it).
                for name, prop in tool.input_schema.get("properties", {}).items():
                    assert not isinstance(prop.get("type"), list), (tool.name, name, prop)
            actions = tools["ctx_refactor"].input_schema
            assert "action" in actions["required"], actions

            # Issued at once, with LEAN_CTX_MCP_WAIT_MS=0 asking not to wait for the
            # first index: the fixture is large, so it is most likely still running,
            # but it may be done. Either answer is checked: while it runs, INDEXING
            # with its progress (never a partial or empty answer); once done, the
            # whole answer.
            deadline = time.monotonic() + 120
            while True:
                is_error, body = await call(session, "ctx_search", {"query": "helper"})
                if not is_error:
                    break
                assert body.startswith("ERROR: INDEXING:"), body
                assert re.search(r"progress: \d+% \(\d+/\d+ files\)", body), body
                assert time.monotonic() < deadline, "index never finished"
                await asyncio.sleep(0.2)
            assert "src/lib.rs:9:7  function helper  pub fn helper() -> i32" in body, body
            assert body.count("\n") == 0, "one hit, and no count line: " + body

            is_error, body = await call(session, "ctx_search", {"action": "text", "query": "Point { x }"})
            assert not is_error, body
            assert body.startswith("src/lib.rs:5  Point { x }"), body
            is_error, body = await call(session, "ctx_search", {"action": "regex", "query": "fn (", "ignore_case": True})
            assert is_error and body.startswith("ERROR: INVALID_TARGET: not a valid regex"), body
            is_error, body = await call(session, "ctx_search", {"action": "grep", "query": "x"})
            assert is_error and body.startswith("ERROR: INVALID_TARGET:") and "symbol, text, regex" in body, body

            is_error, body = await call(session, "ctx_tree", {"path": "src", "depth": "1"})
            assert not is_error and body.startswith("src/ ("), body
            assert "\n  lib.rs" in body, body

            is_error, outline = await call(session, "ctx_outline", {"path": "src/lib.rs"})
            assert not is_error and outline.startswith("src/lib.rs (rust)"), outline
            assert "pub fn new(x: i32) -> Self" in outline, outline
            assert "pub fn helper() -> i32" in outline, outline

            is_error, body = await call(session, "ctx_refactor", {"action": "symbols_overview", "path": "src/lib.rs", "depth": 0})
            assert not is_error and "(rust, 5 symbols)" in body, body

            is_error, body = await call(
                session,
                "ctx_refactor",
                {"action": "replace_symbol_body", "name_path": "helper", "new_body": "pub fn helper() -> i32 { 2 }"},
            )
            assert not is_error, body
            first_hash = re.search(r"written, hash ([0-9a-f]{16})", body).group(1)
            is_error, body = await call(
                session,
                "ctx_refactor",
                {"action": "replace_symbol_body", "name_path": "helper", "expected_hash": first_hash, "new_body": "pub fn helper() -> i32 { 3 }"},
            )
            assert not is_error, body
            is_error, body = await call(
                session,
                "ctx_refactor",
                {"action": "replace_symbol_body", "name_path": "helper", "expected_hash": first_hash, "new_body": "pub fn helper() -> i32 { 4 }"},
            )
            assert is_error and body.startswith("ERROR: CONFLICT:"), body
            with open(os.path.join(project, "src/lib.rs")) as f:
                assert "pub fn helper() -> i32 { 3 }" in f.read()

            is_error, body = await call(session, "ctx_refactor", {"action": "insert_after_symbol", "name_path": "run", "text": "fn x() {}"})
            assert is_error and body.startswith("ERROR: AMBIGUOUS_SYMBOL:"), body
            assert "a/run  src/dup.rs:1" in body and "b/run  src/dup.rs:2" in body, body
            is_error, body = await call(session, "ctx_outline", {"path": "../outside"})
            assert is_error and body.startswith("ERROR: FILE_NOT_FOUND:") and "remedy:" in body, body
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_symbol_body", "name_path": "helper"})
            assert is_error and "needs `new_body`" in body, body
            is_error, body = await call(session, "ctx_search", {"query": "x", "kind": "gadget"})
            assert is_error and "unknown kind" in body, body
            await typed_failures_and_dialect(session, project)

            # The daemon dies under the session: the next call brings a new one.
            # The lock of the one daemon here (named by its wire schema).
            [lock] = glob.glob(os.path.join(os.environ["LEAN_CTX_RUNTIME_DIR"], "lean-ctxd-*.lock"))
            with open(lock) as f:
                pid = int(f.read().strip())
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while True:
                is_error, body = await call(session, "ctx_outline", {"path": "src/lib.rs"})
                if not is_error:
                    break
                assert body.startswith("ERROR: INDEXING:") or "lean-ctxd" in body, body
                assert time.monotonic() < deadline, body
                await asyncio.sleep(0.2)
            # A new daemon answered, from the file as the session's edits left it:
            # the same outline as before but for the hashes (the edits changed bodies,
            # which outlines show only as their symbols' hashes), and the disk still
            # holds the last edit.
            with open(lock) as f:
                assert int(f.read().strip()) != pid, "the killed daemon was not replaced"
            unhashed = lambda t: re.sub(r"  [0-9a-f]{16}$", "", t, flags=re.M)
            assert unhashed(body) == unhashed(outline), f"{body}\n!=\n{outline}"
            assert body != outline, "the edited symbol's hash is new"
            with open(os.path.join(project, "src/lib.rs")) as f:
                assert "pub fn helper() -> i32 { 3 }" in f.read()
    await roots_session(shim, project)
    print("ok")


async def typed_failures_and_dialect(session, project):
    """Arguments that do not fit are tool errors naming what is accepted
    (INVALID_TARGET), never JSON-RPC errors (call_tool would raise); the published
    tool's spellings work unchanged. Leaves src/lib.rs as it found it."""
    is_error, body = await call(session, "ctx_refactor", {"action": "frobnicate", "path": "src/lib.rs"})
    assert is_error and body.startswith("ERROR: INVALID_TARGET:") and "replace_lines" in body, body
    # Errors are structured content too: code, message, remedy, and the details an
    # agent acts on (here every candidate of an ambiguous name path).
    result = await session.call_tool("ctx_refactor", {"action": "frobnicate"})
    error = result.structured_content["error"]
    assert result.is_error and error["code"] == "INVALID_TARGET" and "actions:" in error["remedy"], error
    result = await session.call_tool("ctx_refactor", {"action": "insert_after_symbol", "name_path": "run", "text": "fn x() {}"})
    error = result.structured_content["error"]
    assert error["code"] == "AMBIGUOUS_SYMBOL", error
    names = sorted(c["name_path"] for c in error["details"]["candidates"])
    assert names == ["a/run", "b/run"], error
    is_error, body = await call(session, "ctx_refactor", {"action": "references", "path": "src/lib.rs", "line": {"n": 5}, "column": 8})
    assert is_error and body.startswith("ERROR: INVALID_TARGET:") and "accepts:" in body and "line" in body, body
    is_error, body = await call(session, "ctx_outline", {"depth": [1]})
    assert is_error and body.startswith("ERROR: INVALID_TARGET:") and "depth" in body, body
    is_error, body = await call(session, "ctx_search", {"limit": 5})
    assert is_error and body.startswith("ERROR: INVALID_TARGET:") and "query" in body, body

    is_error, body = await call(session, "ctx_refactor", {"action": "symbols_overview", "file": "src/lib.rs"})
    assert not is_error and "(rust, 5 symbols)" in body, body
    with open(os.path.join(project, "src/lib.rs")) as f:
        before = f.read()
    is_error, body = await call(
        session,
        "ctx_refactor",
        {"action": "replace_symbol_body", "file": "src/lib.rs", "name_path": "helper", "new_text": "pub fn helper() -> i32 { 5 }"},
    )
    assert not is_error, body
    with open(os.path.join(project, "src/lib.rs")) as f:
        assert "pub fn helper() -> i32 { 5 }" in f.read()
    # `<action>_preview` is the action previewed: here no language server runs (the
    # root is not trusted), so the answer says that, not that the action is unknown.
    is_error, body = await call(
        session,
        "ctx_refactor",
        {"action": "rename_preview", "file": "src/lib.rs", "line": 9, "column": 7, "new_name": "helper2"},
    )
    assert is_error and body.startswith("ERROR: BACKEND_REQUIRED:"), body
    is_error, body = await call(
        session,
        "ctx_refactor",
        {"action": "replace_symbol_body", "path": "src/lib.rs", "name_path": "helper", "new_body": "pub fn helper() -> i32 { 3 }"},
    )
    assert not is_error, body
    with open(os.path.join(project, "src/lib.rs")) as f:
        assert f.read() == before


async def roots_session(shim, project):
    """A client that offers MCP roots: the server takes the project from them, not
    from its working directory (here the project's parent), and finds the project
    around a root as the CLI does around its working directory (`src/` → the crate)."""
    from mcp import types

    for offered in (project, os.path.join(project, "src")):
        async def list_roots(context, offered=offered):
            return types.ListRootsResult(roots=[types.Root(uri="file://" + os.path.realpath(offered))])

        params = StdioServerParameters(command=shim, args=["mcp"], cwd=os.path.dirname(project), env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, list_roots_callback=list_roots) as session:
                await session.initialize()
                is_error, body = await call(session, "ctx_outline", {"path": "src/lib.rs", "depth": 0})
                assert not is_error and body.startswith("src/lib.rs (rust)"), (offered, body)


async def broad_roots(shim, project):
    """A client that offers `/` as its root, in a session started at `/`: no
    project is made of it (neither of the client's root nor of the working
    directory), and nothing outside a project is served."""
    from mcp import types

    async def list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri="file:///")])

    params = StdioServerParameters(command=shim, args=["mcp"], cwd="/", env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots) as session:
            await session.initialize()
            for tool, args in (("ctx_read", {"path": "etc/passwd"}), ("ctx_tree", {})):
                is_error, body = await call(session, tool, args)
                assert is_error and "/ is not a project root" in body, (tool, body)
                assert "root:x:" not in body, body
    print("ok")


async def language_servers(shim, project):
    """ctx_refactor's language-server actions on a Python project served by pylsp."""
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            # `fläche` at main.py line 3, column 25 (in characters; 26 in UTF-16 would
            # be the same here, 27 in UTF-8 bytes).
            is_error, body = await call(session, "ctx_navigate", {"action": "definition", "path": "main.py", "line": 3, "column": 26})
            assert not is_error, body
            assert re.fullmatch(r"geo\.py\n  function fläche  [0-9a-f]{16}\n    2:4  def fläche\(a, b\):\n1 location \(pylsp\)", body), body
            is_error, body = await call(session, "ctx_navigate", {"action": "references", "path": "geo.py", "line": "2", "column": "5"})
            # The import line is counted, not listed: the uses are the rest.
            assert not is_error and body.endswith("4 locations (1 in imports, not listed) (pylsp)"), body
            assert "main.py\n  3:11" in body and "from geo import" not in body, body
            # By name, no column to know: the same answer.
            is_error, by_name = await call(session, "ctx_navigate", {"action": "references", "name_path": "fläche"})
            assert not is_error and by_name == body, by_name

            is_error, body = await call(session, "ctx_navigate", {"action": "inspections", "path": "main.py"})
            assert not is_error and "'os' imported but unused" in body, body
            assert "[pyflakes]" in body, body

            is_error, body = await call(session, "ctx_refactor", {"action": "rename", "name_path": "fläche", "path": "geo.py", "new_name": "area", "preview": True})
            assert not is_error, body
            plan = re.search(r"plan_hash ([0-9a-f]{64})", body).group(1)
            assert "fläche → area" in body, body
            with open(os.path.join(project, "main.py")) as f:
                assert "fläche(2, 3)" in f.read()
            # By name, previewed and applied: no column to know.
            is_error, body = await call(session, "ctx_refactor", {"action": "rename", "name_path": "fläche", "path": "geo.py", "new_name": "area", "plan_hash": plan})
            assert not is_error and "applied to 2 files: geo.py, main.py" in body, body
            with open(os.path.join(project, "main.py")) as f:
                assert "area(2, 3)" in f.read()

            is_error, body = await call(session, "ctx_navigate", {"action": "type_hierarchy", "path": "geo.py", "line": 2, "column": 5})
            assert is_error and body.startswith("ERROR: UNSUPPORTED:"), body
            is_error, body = await call(session, "ctx_navigate", {"action": "call_hierarchy", "name_path": "area", "direction": "outgoing"})
            assert is_error and body.startswith("ERROR: UNSUPPORTED:") and "call_hierarchy" in body, body
            is_error, body = await call(session, "ctx_refactor", {"action": "move", "path": "geo.py", "line": 2, "column": 5, "destination": "x.py"})
            assert is_error and body.startswith("ERROR: BACKEND_REQUIRED:"), body
            is_error, body = await call(session, "ctx_navigate", {"action": "references", "path": "geo.py", "line": 2})
            assert is_error and "needs `column`" in body and "name_path" in body, body
            is_error, body = await call(session, "ctx_navigate", {"action": "inspections", "path": "main.py", "mode": "sideways"})
            assert is_error and body.startswith("ERROR: INVALID_TARGET:"), body
    print("ok")


async def idle(shim, project):
    """A session whose connection the daemon closes for idleness (its
    connection_idle_timeout is short in this test), then calls again: answered by the
    same daemon over a new connection, no error reaches the agent."""
    log = os.path.join(os.environ["LEAN_CTX_STATE_DIR"], "lean-ctxd.log")
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            is_error, body = await call(session, "ctx_outline", {"path": "src/lib.rs"})
            assert not is_error and "helper" in body, body
            with open(log) as f:
                closed_before = f.read().count("closing connection: no call for")
            # Wait for the daemon to close this session's connection (bounded).
            deadline = time.monotonic() + 60
            while True:
                with open(log) as f:
                    if f.read().count("closing connection: no call for") > closed_before:
                        break
                assert time.monotonic() < deadline, "the idle connection was never closed"
                await asyncio.sleep(0.1)
            is_error, body = await call(session, "ctx_search", {"query": "helper"})
            assert not is_error and "helper" in body, body
    print("ok")


async def agent_loop(shim, project):
    """An agent's whole loop on a real crate (a copy of a registry crate, git-initialised
    by the test, plus a CRLF file with non-ASCII text): tree, search, read the map,
    read one symbol, edit it with that hash, re-read (one line), someone else changes
    it, re-read (the diff), a stale edit (CONFLICT showing what changed), a fresh
    edit. Every edit is guarded by a hash an answer gave."""
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    lib = os.path.join(project, "src/lib.rs")
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert tools["ctx_read"].annotations.read_only_hint is True, tools["ctx_read"].annotations
            assert "mode" in tools["ctx_read"].input_schema["properties"], tools["ctx_read"].input_schema

            is_error, body = await call(session, "ctx_tree", {})
            assert not is_error and "\n  src/ (" in body, body

            is_error, body = await call(session, "ctx_search", {"query": "Version/new"})
            assert not is_error, body
            hit = re.match(r"src/lib\.rs:(\d+):\d+  method Version/new  pub const fn new\(major: u64, minor: u64, patch: u64\) -> Self  ([0-9a-f]{16})$", body)
            assert hit, body
            line, search_hash = int(hit.group(1)), hit.group(2)
            is_error, body = await call(session, "ctx_search", {"action": "text", "query": "BuildMetadata::EMPTY,", "path": "src/lib.rs"})
            assert not is_error and "BuildMetadata::EMPTY," in body, body

            is_error, body = await call(session, "ctx_read", {"path": "src/lib.rs", "mode": "map"})
            assert not is_error, body
            entry = re.search(r"\n    (\d+)-(\d+)  method Version/new  ([0-9a-f]{16})\n", body)
            assert entry and int(entry.group(1)) == line, body
            end, map_hash = int(entry.group(2)), entry.group(3)
            assert map_hash == search_hash, (map_hash, search_hash)

            is_error, body = await call(session, "ctx_read", {"path": "src/lib.rs", "name_path": "Version/new"})
            assert not is_error, body
            head = re.match(r"lines (\d+)-(\d+) of \d+  hash ([0-9a-f]{16})  \(read \d+\)\n", body)
            # The window starts at the doc comment above the declaration: the hash
            # covers it (a replacement may rewrite it).
            assert head and int(head.group(1)) < line and int(head.group(2)) == end, body
            assert "/// Create `Version` with an empty pre-release and build metadata." in body, body
            assert head.group(3) == map_hash, body
            assert f"{line}     pub const fn new(" in body, body

            new_body = "pub const fn new(major: u64, minor: u64, patch: u64) -> Self {\n    // Built by the agent.\n    Version {\n        major,\n        minor,\n        patch,\n        pre: Prerelease::EMPTY,\n        build: BuildMetadata::EMPTY,\n    }\n}"
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_symbol_body", "name_path": "Version/new", "path": "src/lib.rs", "new_body": new_body, "expected_hash": map_hash})
            assert not is_error, body
            with open(lib) as f:
                assert "        // Built by the agent.\n" in f.read()

            # The agent's own edit: re-reading it is one line.
            is_error, body = await call(session, "ctx_read", {"path": "src/lib.rs", "name_path": "Version/new"})
            assert not is_error and re.fullmatch(r"unchanged since your read \d+", body), body

            # Someone else changes it.
            with open(lib) as f:
                text = f.read()
            with open(lib, "w") as f:
                f.write(text.replace("        // Built by the agent.\n", "        // Changed by a colleague, größer.\n"))
            is_error, body = await call(session, "ctx_read", {"path": "src/lib.rs", "name_path": "Version/new"})
            assert not is_error, body
            assert re.match(r"changed since your read \d+, hash [0-9a-f]{16}  \(read \d+\)\n@@ ", body), body
            assert "\n-        // Built by the agent.\n+        // Changed by a colleague, größer.\n" in body, body
            fresh_hash = re.search(r"hash ([0-9a-f]{16})", body).group(1)

            # The stale hash: CONFLICT, showing what changed since it was taken.
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_symbol_body", "name_path": "Version/new", "path": "src/lib.rs", "new_body": new_body.replace("agent", "agent again"), "expected_hash": map_hash})
            assert is_error and body.startswith("ERROR: CONFLICT:"), body
            with open(lib) as f:
                assert "größer" in f.read(), "a stale edit wrote"
            # The daemon knows the text that hash stood for (the map's): the diff.
            assert "what changed since that hash was taken (lines of the file now):\n@@ " in body, body
            assert "\n+        // Changed by a colleague, größer.\n" in body, body

            # Fresh: the hash from the re-read.
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_symbol_body", "name_path": "Version/new", "path": "src/lib.rs", "new_body": new_body.replace("agent", "agent, after the colleague"), "expected_hash": fresh_hash})
            assert not is_error, body
            written = re.search(r"written, hash ([0-9a-f]{16})", body).group(1)
            with open(lib) as f:
                assert "// Built by the agent, after the colleague." in f.read()
            # A stale edit with the hash of text an answer gave: the diff is shown.
            with open(lib) as f:
                text = f.read()
            with open(lib, "w") as f:
                f.write(text.replace("after the colleague", "after the colleague (ü)"))
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_symbol_body", "name_path": "Version/new", "path": "src/lib.rs", "new_body": new_body, "expected_hash": written})
            assert is_error and body.startswith("ERROR: CONFLICT:"), body
            assert "what changed since that hash was taken (lines of the file now):\n@@ " in body, body
            assert "\n-        // Built by the agent, after the colleague.\n+        // Built by the agent, after the colleague (ü).\n" in body, body

            # A CRLF file with non-ASCII text: read a symbol, edit it by its hash, the
            # file keeps its line endings, and the re-read is one line.
            is_error, body = await call(session, "ctx_read", {"path": "src/größe.rs", "name_path": "zweite"})
            assert not is_error, body
            assert "\r" not in body, repr(body)
            assert '3     "ß"' in body, body
            crlf_hash = re.search(r"hash ([0-9a-f]{16})", body).group(1)
            is_error, body = await call(session, "ctx_refactor", {"action": "replace_symbol_body", "name_path": "zweite", "path": "src/größe.rs", "new_body": "pub fn zweite() -> &'static str {\n    \"ẞ\"\n}", "expected_hash": crlf_hash})
            assert not is_error, body
            with open(os.path.join(project, "src/größe.rs"), "rb") as f:
                assert f.read() == "// ünï\r\npub fn zweite() -> &'static str {\r\n    \"ẞ\"\r\n}\r\n".encode(), "CRLF kept"
            is_error, body = await call(session, "ctx_read", {"path": "src/größe.rs", "name_path": "zweite"})
            assert not is_error and re.fullmatch(r"unchanged since your read \d+", body), body
            is_error, body = await call(session, "ctx_read", {"paths": ["src/größe.rs", "../escape.rs"], "mode": "signatures"})
            assert not is_error and "  2  pub fn zweite() -> &'static str  " in body, body
            assert "../escape.rs: ERROR: FILE_NOT_FOUND:" in body, body
    print("ok")


if __name__ == "__main__":
    if sys.argv[1] == "--fixed-cost":
        asyncio.run(fixed_cost(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "--agent-loop":
        asyncio.run(agent_loop(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "--language-servers":
        asyncio.run(language_servers(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "--broad-roots":
        asyncio.run(broad_roots(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "--idle":
        asyncio.run(idle(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "--mixed-repository":
        asyncio.run(mixed_repository(sys.argv[2], sys.argv[3]))
    else:
        asyncio.run(main(sys.argv[1], sys.argv[2]))
