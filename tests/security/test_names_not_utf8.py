"""File names that are not UTF-8, in every listing, search and tree of every dialect, through the real programs.

A file `caf\\xe9.txt` (the byte 0xe9 alone is not UTF-8) and a folder `d\\xe9r` holding `m\\xe9.py` (one Python
definition) sit in a git repository. Every reply is served (the MCP stdio server used to die on the first such
name: `PydanticSerializationError … surrogates not allowed`), is valid UTF-8, and shows each name the one way
(`escapes.shown_name`, as git quotes such paths): `"caf\\xe9.txt"`, `"d\\xe9r/m\\xe9.py"`. A JSON field naming a
file holds that same text (`escapes.json_name`); the same request asked of several dialects is the same text."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stringsh.dialects.operator.results import parse_results
from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.operator.operator_support import block, operator
from tests.dialects.tools.client import tools

CAF, FOLDER, MODULE = "caf\udce9.txt", "d\udce9r", "d\udce9r/m\udce9.py"
SHOWN_CAF, SHOWN_FOLDER, SHOWN_MODULE = '"caf\\xe9.txt"', '"d\\xe9r"', '"d\\xe9r/m\\xe9.py"'
#: The refusal of the escaped form typed back (as a String Commands word, the quotes are the parser's).
TYPED_BACK = ("ERROR(NOT_FOUND): File not found: caf\\xe9.txt\nstringsh reaches only names that are UTF-8; this one "
              "is shown escaped, \"caf\\xe9.txt\", and that form cannot be typed back. Rename it in the shell: "
              "!mv $'caf\\xe9.txt' NEW_NAME")
#: The same in MCP's and the JSON tools' terms: the shell command as the bash tool's JSON argument.
TYPED_BACK_TOOL = TYPED_BACK.replace("!mv $'caf\\xe9.txt' NEW_NAME",
                                    'bash {"command": "mv $\'caf\\\\xe9.txt\' NEW_NAME"}')

#: The String Commands requests (`stringsh run`, `daemon --json`) and the lines of their replies naming the files.
STRING = {
    "/ls": ["Listing ./", "---", f"  {SHOWN_FOLDER}/", f"  {SHOWN_CAF}"],
    "/open .": ["Listing ./", "---", f"  {SHOWN_FOLDER}/", f"  {SHOWN_CAF}"],
    "/glob **/*": ["---", SHOWN_CAF, SHOWN_MODULE, "", "2 files"],
    "/grep hello": ["---", f"{SHOWN_CAF}:1: hello there", "", f"{SHOWN_MODULE}:1: def hello():"],
    "/symbols hello": ["---", f"@s1 {SHOWN_MODULE}:L1-L2  function  #hello", ""],
    "/map": ["---", f"{SHOWN_MODULE}:", "  L1 def hello():"],
    "/git status": ["untracked:", f"  {SHOWN_CAF}", f"  {SHOWN_FOLDER}/"],
}


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace (module-wide: each dialect's program runs once, every case reads its replies)."""
    root = tmp_path_factory.mktemp("names") / "ws"
    (root / FOLDER).mkdir(parents=True)
    (root / CAF).write_text("hello there\n")
    (root / MODULE).write_text("def hello():\n    return 1\n")
    # /glob lists by path (caf, then the module); the JSON tools' glob newest first (the module, then caf)
    os.utime(root / CAF, (1_700_000_000, 1_700_000_000))
    os.utime(root / MODULE, (1_700_000_100, 1_700_000_100))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def utf8(data: bytes) -> str:
    """The program's output, which must be UTF-8 (no raw byte of a name in it)."""
    return data.decode("utf-8")


def string_run(ws: Path) -> dict[str, str]:
    script = ws.parent / "script.txt"
    script.write_text("".join(f"{request}\n" for request in STRING) + '/open "caf\\xe9.txt"\n')
    done = run_stringsh(["run", "--keep-going", str(script)], ws)
    replies = utf8(done.stdout).removeprefix("re: ").split("\nre: ")
    return {reply.split("\n", 1)[0]: reply.split("\n", 1)[1].rstrip("\n") for reply in replies}


def daemon_json(ws: Path) -> dict[str, str]:
    lines = [json.dumps({"id": n, "cmd": request}) for n, request in enumerate(STRING)]
    done = run_stringsh(["daemon", "--json"], ws, stdin="\n".join(lines) + "\n")
    replies = [json.loads(line) for line in utf8(done.stdout).splitlines()]
    assert [reply["id"] for reply in replies] == list(range(len(STRING))), done.stderr
    return {request: reply["content"].split("\n", 1)[1] for request, reply in zip(STRING, replies, strict=True)}


MCP_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "list_directory": ("list_directory", {"path": "."}),
    "list_directory_with_sizes": ("list_directory_with_sizes", {"path": "."}),
    "directory_tree": ("directory_tree", {"path": ".", "excludePatterns": [".git"]}),
    "search_files": ("search_files", {"path": ".", "pattern": "**/*", "excludePatterns": [".git"]}),
    "grep": ("grep", {"pattern": "hello"}),
    "open": ("open", {"target": "."}),
    "string /ls": ("string", {"request": "/ls"}),
    "find_symbol": ("find_symbol", {"query": "hello"}),
    "symbols_overview": ("symbols_overview", {"path": "."}),
    "repo_map": ("repo_map", {}),
    "read_text_file (typed back)": ("read_text_file", {"path": "caf\\xe9.txt"}),
}


def mcp_stdio(ws: Path) -> dict[str, str]:
    with stdio_session(ws, name="names-client") as client:
        return {label: client.call(tool, args).content[0].text  # type: ignore[union-attr]
                for label, (tool, args) in MCP_CALLS.items()}


TOOLS_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "glob": ("glob", {"pattern": "**/*"}),
    "grep": ("grep", {"pattern": "hello"}),
    "symbols": ("symbols", {"query": "hello"}),
    "map": ("map", {}),
    "git status": ("git", {"action": "status"}),
    "read (typed back)": ("read", {"file_path": "caf\\xe9.txt"}),
    "read of a folder": ("read", {"file_path": "."}),
}


def json_tools(ws: Path) -> dict[str, Any]:
    requests = [{"id": n, "tool": tool, "args": args} for n, (tool, args) in enumerate(TOOLS_CALLS.values())]
    return dict(zip(TOOLS_CALLS, tools(ws, *requests), strict=True))


OPERATOR_CALLS = {
    "fs.list": ["action: fs.list", "path: ."],
    "fs.symbols": ["action: fs.symbols", "path: .", "query: hello"],
    "fs.map": ["action: fs.map", "path: ."],
    "fs.read (typed back)": ["action: fs.read", "path: caf\\xe9.txt"],
}


def operator_cmd(ws: Path) -> dict[str, str]:
    blocks = "".join(block("version: 1", f"id: n{n}", *fields) for n, fields in enumerate(OPERATOR_CALLS.values()))
    out, _ = operator(ws, blocks)
    results = parse_results(out)
    return {label: f"{result.summary}\n{result.details or ''}" for label, result in zip(OPERATOR_CALLS, results,
                                                                                          strict=True)}


RUNS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "string": string_run, "daemon-json": daemon_json, "mcp": mcp_stdio, "tools": json_tools, "operator": operator_cmd}
_replies: dict[str, dict[str, Any]] = {}


def replies(ws: Path, dialect: str) -> dict[str, Any]:
    """Each dialect's program run once, on first use, for all its cases."""
    if dialect not in _replies:
        _replies[dialect] = RUNS[dialect](ws)
    return _replies[dialect]


def has_lines(text: str, lines: list[str]) -> bool:
    """Whether `lines` appear in `text` one after another, each a whole line."""
    return f"\n{chr(10).join(lines)}\n" in f"\n{text}\n"


#: dialect, request, and what the reply must be: the lines it holds in order, or (JSON) a check of the reply.
CASES: list[tuple[str, str, Any]] = [
    *(("string", request, lines) for request, lines in STRING.items()),
    *(("daemon-json", request, lines) for request, lines in STRING.items()),
    ("string", '/open "caf\\xe9.txt"', TYPED_BACK.split("\n")),
    ("mcp", "list_directory", [f"[FILE] {SHOWN_CAF}", f"[DIR] {SHOWN_FOLDER}"]),
    ("mcp", "list_directory_with_sizes", [f"[FILE] {SHOWN_CAF.ljust(30)} {'unknown'.rjust(10)}",
                                          f"[DIR] {SHOWN_FOLDER.ljust(30)} ", "", "Total: 1 files, 2 directories"]),
    ("mcp", "directory_tree", lambda text, _ws: json.loads(text) == [
        {"name": SHOWN_CAF, "type": "file"},
        {"name": SHOWN_FOLDER, "type": "directory", "children": [{"name": '"m\\xe9.py"', "type": "file"}]}]),
    ("mcp", "search_files", lambda text, ws: sorted(text.split("\n")) == sorted(
        f'"{ws}/{name}"' for name in ("caf\\xe9.txt", "d\\xe9r/m\\xe9.py"))),
    ("mcp", "grep", STRING["/grep hello"]),
    ("mcp", "open", STRING["/open ."]),
    ("mcp", "string /ls", STRING["/ls"]),
    ("mcp", "find_symbol", STRING["/symbols hello"]),
    ("mcp", "symbols_overview", [f"@s1 {SHOWN_MODULE}:L1-L2  function  #hello"]),
    ("mcp", "repo_map", STRING["/map"]),
    ("mcp", "read_text_file (typed back)", TYPED_BACK_TOOL.split("\n")),
    ("tools", "glob", lambda reply, _ws: reply["result"]["matches"] == [SHOWN_MODULE, SHOWN_CAF]),
    ("tools", "grep", lambda reply, _ws: [m["file_path"] for m in reply["result"]["matches"]]
     == [SHOWN_CAF, SHOWN_MODULE]),
    ("tools", "symbols", lambda reply, _ws: [s["file_path"] for s in reply["result"]["symbols"]] == [SHOWN_MODULE]),
    ("tools", "map", lambda reply, _ws: [s["file_path"] for s in reply["result"]["symbols"]] == [SHOWN_MODULE]
     and reply["result"]["map"] == f"{SHOWN_MODULE}:\n  L1 def hello():"),
    ("tools", "git status", lambda reply, _ws: reply["result"]["untracked"] == [SHOWN_CAF, '"d\\xe9r/"']),
    ("tools", "read (typed back)", lambda reply, _ws: [reply["code"], reply["error"], reply["hint"]]
     == ["NOT_FOUND", "file not found: caf\\xe9.txt", TYPED_BACK_TOOL.split("\n")[1]]),
    ("tools", "read of a folder", lambda reply, _ws: reply["result"]["content"]
     == f".git/\n{SHOWN_CAF}\n{SHOWN_FOLDER}/"),
    ("operator", "fs.list", ["Listed 3 entries", "[DIR] .git", SHOWN_CAF, f"[DIR] {SHOWN_FOLDER}"]),
    ("operator", "fs.symbols", ["", f"{SHOWN_MODULE}:L1-L2 function #hello"]),
    ("operator", "fs.map", ["", f"{SHOWN_MODULE}:", "  L1 def hello():"]),
    ("operator", "fs.read (typed back)", ["NOT_FOUND: File not found: caf\\xe9.txt", TYPED_BACK.split("\n")[1].replace(
        "!mv $'caf\\xe9.txt' NEW_NAME", '"mv $\'caf\\\\xe9.txt\' NEW_NAME" (not an OPERATOR_CMD action: a shell\'s)')]),
]


@pytest.mark.needs("git")
@pytest.mark.parametrize(("dialect", "request_", "expected"), CASES,
                         ids=[f"{dialect}-{request}" for dialect, request, _ in CASES])
def test_a_name_that_is_not_utf8_is_served_and_shown_escaped(named: Path, dialect: str, request_: str,
                                                             expected: Any) -> None:
    ws = named
    reply = replies(ws, dialect)[request_]
    text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
    text.encode("utf-8")  # no lone surrogate: every reply can be sent
    assert "\ufffd" not in text and "caf?" not in text and "\\udce9" not in text, text  # escaped, never lossy
    if callable(expected):
        assert expected(reply, ws), text
    else:
        assert has_lines(text, expected), text


@pytest.mark.needs("git")
@pytest.mark.parametrize("request_", list(STRING))
def test_the_same_request_is_the_same_text_in_every_dialect(named: Path, request_: str) -> None:
    """String Commands through `run`, `daemon --json` and (where MCP asks the same) MCP: one text."""
    same = {"string": replies(named, "string")[request_], "daemon-json": replies(named, "daemon-json")[request_]}
    mcp = {"/ls": "string /ls", "/open .": "open", "/grep hello": "grep", "/symbols hello": "find_symbol",
           "/map": "repo_map"}
    if request_ in mcp:  # MCP's string tools say the request they ran (`/grep -- hello`) on their first line
        same["mcp"] = replies(named, "mcp")[mcp[request_]].split("\n", 1)[1]
    assert len(set(same.values())) == 1, same
