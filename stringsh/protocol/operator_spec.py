# ruff: noqa: E501
# (the spec text keeps one rule per line, as agents read it; wrapping would change the text)
"""The interface specification stringsh implements: what `operator.getInterfaceSpec` returns and what
`/help operator` shows, made here from `ACTIONS` and one entry per action in `ACTION_DOCS`, so the spec an agent
reads and the actions that run cannot drift apart (a test checks every action has its entry)."""

from __future__ import annotations

from stringsh.protocol.operator_model import ACTIONS

VERSION = 3  # the protocol's version (docs/operator-protocol.md); stringsh's deviations are written into the spec

HEADER = f"""Operator Interface Specification (version: {VERSION}; stringsh)

HARD RULES
1. When outputting OPERATOR_CMD blocks, output ONLY plain text (no markdown, no bullet lists, no indentation-based formatting, no surrounding prose).
2. Marker lines MUST be exactly and MUST be alone on their own line: OPERATOR_CMD, END_OPERATOR_CMD, OPERATOR_RESULT, END_OPERATOR_RESULT.
3. Inside OPERATOR_CMD blocks, ONLY lines of the form "key: value" are allowed (one key-value per line; keys are case-sensitive).
4. OPERATOR_CMD blocks MUST NOT be nested. If START appears before END, the block is invalid.
5. Multi-line payloads MUST NEVER be sent inline. Use base64 UTF-8 fields: content_b64, patch_b64, edits_b64 (strict base64: one line, correct padding; strict UTF-8).
6. The plain "content" field MAY be used ONLY for very small single-line text and MUST NOT contain line breaks.
7. Every OPERATOR_CMD MUST include: version: 1, id: <string>, action: <string>.
8. The command id MUST be echoed verbatim in the corresponding OPERATOR_RESULT.
9. Actions starting with "fs." REQUIRE a path field. Actions not starting with "fs." MUST NOT include a path field. fs.copy, fs.move and fs.rename also REQUIRE path_to.
10. Workspace is NOT part of OPERATOR_CMD. Do NOT include workspace/workspaceRoot (or any equivalent) as a command field.
11. Do NOT guess file contents. Read before modifying. Do not issue fs.patch or fs.applyEdits without reading relevant context first.
12. fs.patch is strict unified diff patching; hunks and context must match exactly or the command fails.

MARKERS (each marker must be on its own line)
OPERATOR_CMD
END_OPERATOR_CMD
OPERATOR_RESULT
END_OPERATOR_RESULT

OPERATOR_CMD FORMAT
OPERATOR_CMD
version: 1
id: <string>
action: <string>
(optional additional key: value lines)
END_OPERATOR_CMD

OPERATOR_RESULT FORMAT
OPERATOR_RESULT
id: <same id as command>
ok: true|false
summary: <short single-line summary>
details_b64: <optional base64 UTF-8 payload>
END_OPERATOR_RESULT

Errors: a refused command has ok: false and a one-line summary: "Invalid OPERATOR_CMD (ERR_...): <what to fix>"
for a malformed command, "<CODE>: <message>" for a refusal of the workspace (NOT_FOUND, SECRET_DENIED,
NOT_PERMITTED, CONFLICT, TOO_LARGE, ...), "not confirmed: <why>" when the change was not confirmed.

ACTIONS
"""

FS_HEADER = """FILESYSTEM ACTIONS (fs.*)
All fs.* actions operate strictly within the workspace root (and its other roots, named root:path).
Write/edit/patch/delete/copy/move actions require confirmation: a person answers y/N, or the policy decides
([operator] confirm = "prompt" | "allow" | "deny").
Paths are always interpreted as relative to the workspace root. Secret files are never listed, read or written.
Every change is one change set in stringsh's journal: /undo and /changes see it.
"""

#: One entry per action: the lines after its name. `ACTIONS` says which keys each accepts.
ACTION_DOCS: dict[str, str] = {
    "operator.getInterfaceSpec": """Required: version, id, action
No path allowed
Result: details_b64 contains this interface specification (base64 UTF-8)""",
    "fs.list": """Requires: path (directory)
Result: details_b64 contains directory entries sorted by name, one per line; folders as "[DIR] name"
Summary: Listed N entries""",
    "fs.read": """Requires: path (file)
Result: details_b64 contains full file content (base64 UTF-8), line endings as in the file
Size limit: 200000 bytes; past it: ok: false, "File too large for fs.read (<bytes> bytes). Use fs.readSlice."
Summary: Read file""",
    "fs.readSlice": """Requires: path (file)
Params: start (1-based line, default 1); lines (default 120, max 400: more is read as 400)
Aliases: line/from for start; count/len for lines
start and lines must be whole numbers >= 1; a start past the last line is refused.
Result: details_b64 contains "# <path>", "# lines a-b of N", a blank line, then lines as "<number padded to 6>: <text>"
Summary: Read slice (a-b)""",
    "fs.search": """Requires: path (file)
Params: query (required substring, case-sensitive, trimmed)
Aliases: q
Result: details_b64 contains "# search in <path>", "# query: <query>", "# matches: N" (with " (truncated)" when more than 50 lines match), a blank line, then matching lines as in fs.readSlice
At most 50 matches.
Summary: Search found N matches""",
    "fs.stat": """Requires: path
Result: details_b64 contains JSON {"path","size","isFile","isDir","mtimeMs"}
Summary: Stat""",
    "fs.symbols": """Requires: path (folder or file)
Params: query (required: a name, part of one, or a glob), refs (true: identifiers spelled query, each with its role by scope; or query: <file>#<id> for the references attributable to that definition)
Aliases: q
Result: details_b64 contains "# symbols in <path>", "# query: <query>", "# matches: N", a blank line, then "<path>:L<a>-L<b> <kind> #<id>" per definition (with refs: "<path>:<line>:<column>: <role> in #<container>: <text>", role one of definition, local, parameter, import, qualified, member, use; by syntax, not types)
Source files: Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, Ruby, Bash
Summary: Found N symbols (Found N references (syntactic))""",
    "fs.readSymbol": """Requires: path (source file), symbol (an id as fs.symbols lists it, e.g. Parser.parse)
Optional: plain: true (the definition's lines alone, unnumbered: the body fs.editSymbol takes back)
Result: details_b64 contains "# <path>#<id>", "# <kind>, lines a-b", a blank line, then the definition (decorators and comments above it included) as in fs.readSlice, or its plain lines
Summary: Read symbol (a-b)""",
    "fs.map": """Requires: path (the focus: a folder or file whose source files the ranking leans toward; . for none)
Params: budget (tokens the map may take, 4 characters each: a whole number from 64 to 1000000; default 1024)
Result: details_b64 contains "# map of ./" (with " (focus: <path>)"), "# symbols: N from M files, ~T tokens (budget B)", "# ranked: D definitions in F source files", a blank line, then per file "<path>:" and "  L<line> <signature>" per definition (with "  #<id>" after it when the id is not the bare name), the most referenced definitions of the workspace (PageRank over the files' uses of names) that fit the budget
Summary: Mapped N symbols""",
    "fs.write": """Requires: path
Requires confirmation
Payload: content_b64 (preferred, base64 UTF-8, multi-line allowed) OR content (single-line only)
Behavior: overwrites or creates the file (and its missing parent folders); an existing file keeps its encoding, BOM and line endings
Summary: Wrote file""",
    "fs.patch": """Requires: path
Requires confirmation
Payload: patch_b64 (base64 UTF-8 unified diff)
Behavior: strict unified diff for the file at path only (bare @@ hunks, or ---/+++ headers naming that path); supports @@ -a,b +c,d @@ hunks; context must match exactly; line endings and BOM are kept
Summary: Patched file, or "Patch failed: <why>\"""",
    "fs.applyEdits": """Requires: path
Requires confirmation
Payload: edits_b64 (base64 UTF-8 JSON)
Decoded JSON format: {"version":1,"edits":[...]}
Edit objects (op): insertAfter, insertBefore, replaceFirst, replaceAll, replaceRange.
For insert*: anchor (string), text (string), optional occurrence (number>=1).
For replace*: find (string), text (string). replaceFirst needs exactly one match.
For replaceRange: startLine (1-based), endLine (1-based, inclusive), text (string; "" removes the lines).
For insertAfter, if the anchor ends a line and text does not start with "\\n", "\\n" is put first.
Strict semantics: edits run in order; the first failure aborts ("ApplyEdits failed: Edit <i>: <why>", i counted from 0) and no changes are written.
Summary: Applied edits""",
    "fs.editSymbol": """Requires: path (source file), symbol
Requires confirmation
Payload: body_b64 (base64 UTF-8: the whole new definition)
Optional: position: replace (default), before or after (add a new definition beside the symbol); force: true
Behavior: replaces exactly the symbol's bytes (or inserts at its indentation); refused unless the body parses as one definition of the same kind and name and adds no syntax error (force: true overrides); line endings, encoding and every other byte kept
Summary: Edited symbol (Inserted symbol)""",
    "fs.findDefinition": """Requires: path (source file), line, column (1-based, as fs.symbols with refs: true lists them)
Behavior: the definitions of the name at that position: a local binding or parameter of the function around it first, then the file's own definition, then the import followed to its file, else every definition of the name in the workspace
Result: details_b64 lists path:LINE:COLUMN: kind #id of each
Summary: Found N definitions""",
    "fs.renameSymbol": """Requires: path (source file), symbol, new_name
Requires confirmation
Optional: dry_run: true (only the diff, nothing written)
Behavior: renames the definition and every reference syntax attributes to it, across files, as one change set (one /undo); refused with AMBIGUOUS_REFERENCE listing the sites it cannot attribute, NAME_TAKEN when new_name is already defined where a site would see it; strings and comments are left alone
Result: details_b64 contains the unified diff of every file
Summary: Renamed symbol (N sites in M files), or Would rename symbol (…)""",
    "fs.delete": """Requires: path
Requires confirmation
Behavior: deletes the file, link or folder (with everything in it); /undo brings it back
Summary: Deleted""",
    "fs.copy": """Requires: path (file or directory)
Requires: path_to (destination path, not an existing folder)
Optional: overwrite: true (replace an existing destination file; default false)
Requires confirmation
Behavior: copies from path to path_to (missing parent folders are made); a directory is copied to a new path with all its files and folders (a link or a secret inside refuses the copy)
Summary: Copied""",
    "fs.move": """Requires: path (file, link or folder)
Requires: path_to (destination path, not an existing folder)
Optional: overwrite: true (replace an existing destination file; default false)
Requires confirmation
Behavior: moves/renames from path to path_to (missing parent folders are made)
Summary: Moved""",
    "fs.rename": """Alias of fs.move
Summary: Renamed""",
}

WORKFLOW = """RECOMMENDED WORKFLOW
1) operator.getInterfaceSpec (once at the start of a session)
2) fs.search
3) fs.readSlice
4) fs.applyEdits (preferred) or fs.patch (single-hunk, minimal context)
5) fs.readSlice (verify the change)
"""


def interface_spec() -> str:
    """The whole spec text, actions in `ACTIONS` order, fs.* after the operator.* ones."""
    parts = [HEADER]
    fs_started = False
    for name in ACTIONS:
        if name.startswith("fs.") and not fs_started:
            parts.append(FS_HEADER)
            fs_started = True
        parts.append(f"{name}\n{ACTION_DOCS[name]}\n")
    parts.append(WORKFLOW)
    return "\n".join(parts)
