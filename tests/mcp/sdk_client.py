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
`--idle` a session that sits idle until the daemon closes its connection, then calls.
"""

import asyncio
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


async def main(shim, project):
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            started = time.monotonic()
            init = await session.initialize()
            took = time.monotonic() - started
            assert init.server_info.name == "lean-ctx", init.server_info
            assert "ctx_outline" in (init.instructions or "")
            # A behaviour bound, not a benchmark: clients give up after ~30 s.
            assert took < 5, f"initialize took {took:.1f}s"

            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == {"ctx_outline", "ctx_tree", "ctx_search", "ctx_read", "ctx_refactor"}, set(tools)
            for read_only in ("ctx_tree", "ctx_search", "ctx_read"):
                assert tools[read_only].annotations.read_only_hint is True, tools[read_only].annotations
            for tool in tools.values():
                Draft202012Validator.check_schema(tool.input_schema)
                assert tool.description, tool.name
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
            assert "src/lib.rs:9:0  function helper  pub fn helper() -> i32" in body, body
            assert body.endswith("1 matches"), body

            is_error, body = await call(session, "ctx_search", {"action": "text", "query": "Point { x }"})
            assert not is_error, body
            assert body.startswith("src/lib.rs\n  5:8  Point { x }  (in method Point/new)\n"), body
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
            first_hash = re.search(r"hash ([0-9a-f]{64})$", body).group(1)
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

            # The daemon dies under the session: the next call brings a new one.
            lock = os.path.join(os.environ["LEAN_CTX_RUNTIME_DIR"], "lean-ctxd.lock")
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
            # the same outline as before (the edits changed bodies, which outlines
            # leave out), and the disk still holds the last edit.
            with open(lock) as f:
                assert int(f.read().strip()) != pid, "the killed daemon was not replaced"
            assert body == outline, f"{body}\n!=\n{outline}"
            with open(os.path.join(project, "src/lib.rs")) as f:
                assert "pub fn helper() -> i32 { 3 }" in f.read()
    await roots_session(shim, project)
    print("ok")


async def roots_session(shim, project):
    """A client that offers MCP roots: the server takes the project from them, not
    from its working directory (here the project's parent)."""
    from mcp import types

    async def list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri="file://" + os.path.realpath(project))])

    params = StdioServerParameters(command=shim, args=["mcp"], cwd=os.path.dirname(project), env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots) as session:
            await session.initialize()
            is_error, body = await call(session, "ctx_outline", {"path": "src/lib.rs", "depth": 0})
            assert not is_error and body.startswith("src/lib.rs (rust)"), body


async def language_servers(shim, project):
    """ctx_refactor's language-server actions on a Python project served by pylsp."""
    params = StdioServerParameters(command=shim, args=["mcp"], cwd=project, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            # `fläche` at main.py line 3, column 25 (in characters; 26 in UTF-16 would
            # be the same here, 27 in UTF-8 bytes).
            is_error, body = await call(session, "ctx_refactor", {"action": "definition", "path": "main.py", "line": 3, "column": 26})
            assert not is_error, body
            assert body == "geo.py\n  2:4  def fläche(a, b):\n1 location (pylsp)", body
            is_error, body = await call(session, "ctx_refactor", {"action": "references", "path": "geo.py", "line": "2", "column": "5"})
            assert not is_error and body.endswith("4 locations (pylsp)"), body
            assert "main.py\n  1:16  from geo import fläche\n  3:11" in body, body

            is_error, body = await call(session, "ctx_refactor", {"action": "inspections", "path": "main.py"})
            assert not is_error and "'os' imported but unused" in body, body
            assert "[pyflakes]" in body, body

            is_error, body = await call(session, "ctx_refactor", {"action": "rename", "path": "geo.py", "line": 2, "column": 5, "new_name": "area", "preview": True})
            assert not is_error, body
            plan = re.search(r"plan_hash ([0-9a-f]{64})", body).group(1)
            assert "fläche → area" in body, body
            with open(os.path.join(project, "main.py")) as f:
                assert "fläche(2, 3)" in f.read()
            is_error, body = await call(session, "ctx_refactor", {"action": "rename", "path": "geo.py", "line": 2, "column": 5, "new_name": "area", "plan_hash": plan})
            assert not is_error and "applied to 2 files: geo.py, main.py" in body, body
            with open(os.path.join(project, "main.py")) as f:
                assert "area(2, 3)" in f.read()

            is_error, body = await call(session, "ctx_refactor", {"action": "type_hierarchy", "path": "geo.py", "line": 2, "column": 5})
            assert is_error and body.startswith("ERROR: UNSUPPORTED:"), body
            is_error, body = await call(session, "ctx_refactor", {"action": "move", "path": "geo.py", "line": 2, "column": 5, "destination": "x.py"})
            assert is_error and body.startswith("ERROR: BACKEND_REQUIRED:"), body
            is_error, body = await call(session, "ctx_refactor", {"action": "references", "path": "geo.py", "line": 2})
            assert is_error and "needs `column`" in body, body
            is_error, body = await call(session, "ctx_refactor", {"action": "inspections", "path": "main.py", "mode": "sideways"})
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


if __name__ == "__main__":
    if sys.argv[1] == "--language-servers":
        asyncio.run(language_servers(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "--idle":
        asyncio.run(idle(sys.argv[2], sys.argv[3]))
    else:
        asyncio.run(main(sys.argv[1], sys.argv[2]))
