"""`/rename path#Symbol NEW` and every dialect's rename: the definition and each reference attributed to it
(references.py), across files, as one change set.

Planned first, nothing written: the sites (refused with the list of ambiguous ones rather than guessing), NEW
checked as a name of the language and as not already bound where a site would see it, each file's new text spliced
at the sites' bytes only and encoded as the file is. Written by one `Workspace.apply`: every file or none, one
journal entry, one `/undo`, each file held against the bytes the caller last read of it (the topic's, else this
read's), under the engine's guards (permissions, secrets, protected paths, read-only roots, budgets).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.documents.identifiers import is_identifier
from stringsh.documents.references import Attribution, Site, Source, attribute
from stringsh.documents.scopedrefs import go_path, load, split_target
from stringsh.documents.symbolsearch import sources
from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.render.code.occurrences import occurrences

if TYPE_CHECKING:
    from stringsh.workspace import ChangeSetId, Workspace

USAGE = "Usage: /rename path#Symbol NEW [--dry-run]"
#: Ambiguous sites a refusal lists before saying how many more there are.
LISTED = 50


@dataclass
class FileRename:
    """One file's part of a rename: its text before and after, the bytes to write and what they replace."""

    rel: str
    old: str
    new: str
    data: bytes
    expected: str  # the sha256 the write is held against
    sites: int
    sha256: str = ""  # of the bytes read now


@dataclass
class RenamePlan:
    label: str  # `path#id`
    old_name: str
    new_name: str
    attribution: Attribution
    files: list[FileRename] = field(default_factory=list)

    @property
    def sites(self) -> int:
        return sum(f.sites for f in self.files)


def plan_rename(ws: Workspace, target: str, new_name: str, *, topic: str,
                seen: dict[str, str] | None = None) -> RenamePlan:
    """The rename of `path#Symbol` to `new_name`, planned and checked; `seen`: the sha256 the topic last read of
    each file (a file changed since is refused by the engine: CONFLICT)."""
    from stringsh.render.code.views import resolve_symbol

    path, block = split_target(target, "Name the definition to rename")
    source, _sha = load(ws, path, topic, legacy="edit")
    symbol = resolve_symbol(source.index, source.rel, block)
    label = f"{source.rel}#{symbol.id}"
    language = source.index.language
    _check_name(language, symbol.name, new_name, symbol.kind)
    found, _traversal = sources(ws, symbol.name, ["."], command=f"rename {target} {new_name}", topic=topic)
    candidates = [Source(rel, text, index) for rel, text, index in found]
    attribution = attribute(source, symbol, candidates, go_path(ws, source, topic))
    if attribution.ambiguous:
        raise _ambiguous(ws, label, attribution, {c.rel: c.text for c in [source, *candidates]})
    texts = {c.rel: c for c in [*candidates, source]}
    by_file: dict[str, list[Site]] = {}
    for site in attribution.sites:
        by_file.setdefault(site.rel, []).append(site)
    _check_free(ws, attribution, texts, by_file, new_name, topic)
    _check_exported(language, source.rel, symbol.name, new_name, by_file)
    plan = RenamePlan(label, symbol.name, new_name, attribution)
    for rel, sites in by_file.items():
        plan.files.append(_file(ws, rel, texts[rel].text, sites, symbol.name, new_name, topic, seen))
    return plan


def write_rename(ws: Workspace, plan: RenamePlan, *, topic: str) -> ChangeSetId:
    """Every file of the plan as one change set (op `edit`: files changed in place)."""
    from stringsh.workspace import ChangeSet, FileChange

    changes = ChangeSet(files=[FileChange(f.rel, f.data, f.expected) for f in plan.files])
    return ws.apply(changes, topic=topic, op="edit")


def preview(ws: Workspace, plan: RenamePlan, *, max_lines: int = 200) -> str:
    """The plan as String's line diff, a `[path]` line heading each file (lines masked)."""
    from stringsh.documents.diffreply import format_diff

    return "\n".join(f"[{f.rel}]\n{format_diff(f.old, f.new, max_lines=max_lines, redactor=ws.redactor)}"
                     for f in plan.files)


def summary(plan: RenamePlan) -> str:
    """`6 sites in 3 files (pkg/util.py 3, pkg/app.py 2, pkg/cli.py 1)`."""
    count = len(plan.files)
    each = ", ".join(f"{f.rel} {f.sites}" for f in plan.files)
    return f"{plan.sites} site{'s' if plan.sites != 1 else ''} in {count} file{'s' if count != 1 else ''} ({each})"


def _check_name(language: str, old: str, new: str, kind: str) -> None:
    if not is_identifier(language, new):
        raise StringError("INVALID_PAYLOAD", f"Not a {language} identifier: {new[:80]!r}; nothing was written.",
                          "Give NEW as a plain name of the language (letters, digits and _, not a keyword).")
    if new == old:
        raise StringError("INVALID_PAYLOAD", f"The symbol is already named {new}; nothing was written.",
                          "Give a different NEW name.")
    if language == "ruby" and kind in ("class", "module") and not new[0].isupper():
        raise StringError("INVALID_PAYLOAD", f"A Ruby {kind} name is a constant: {new} does not start with a capital; "
                          "nothing was written.", f"Try {new[0].upper()}{new[1:]}.")


def _check_exported(language: str, rel: str, old: str, new: str, by_file: dict[str, list[Site]]) -> None:
    """Go: a name used from another package must stay exported (a capital first letter)."""
    if language != "go" or not old[:1].isupper() or new[:1].isupper():
        return
    outside = sorted(other for other in by_file if posixpath.dirname(other) != posixpath.dirname(rel))
    if outside:
        verb = "uses" if len(outside) == 1 else "use"
        raise StringError("INVALID_PAYLOAD", f"{new} would not be exported, and {', '.join(outside[:3])} {verb} "
                          f"{old} from another package; nothing was written.",
                          f"Keep a capital first letter: {new[:1].upper()}{new[1:]}")


def _ambiguous(ws: Workspace, label: str, attribution: Attribution, texts: dict[str, str]) -> StringError:
    """AMBIGUOUS_REFERENCE listing each site syntax cannot attribute, with why (masked lines)."""
    lines = {rel: text.split("\n") for rel, text in texts.items()}
    listed = []
    for site in attribution.ambiguous[:LISTED]:
        o = site.occurrence
        text = ws.redact_lines(lines[site.rel][o.line - 1].rstrip("\r").strip())
        listed.append(f"{site.rel}:{o.line}:{o.column}: {site.why}: {text}")
    more = len(attribution.ambiguous) - LISTED
    if more > 0:
        listed.append(f"… and {more} more")
    return StringError(
        "AMBIGUOUS_REFERENCE",
        f"Refusing to rename {label}: {len(attribution.ambiguous)} site{'s' if len(attribution.ambiguous) != 1 else ''}"
        " may or may not refer to it, and syntax cannot tell; nothing was written.",
        "\n".join([*listed, f"Change those by hand (/edit), then rename; /symbols --refs {command_word(label)} lists "
                            "every site."]),
    )


def _check_free(ws: Workspace, attribution: Attribution, texts: dict[str, Source], by_file: dict[str, list[Site]],
                new: str, topic: str) -> None:
    """NAME_TAKEN when NEW is already bound where a renamed site would see it: beside the definition (its file,
    class or Go package), at the top of a file with sites, or as a local of a function holding one."""
    symbol = attribution.symbol
    owner = symbol.qualified.rpartition(".")[0]
    target = texts[attribution.rel]
    if any(s.qualified == (f"{owner}.{new}" if owner else new) for s in target.index.symbols):
        raise _taken(new, attribution.rel, "beside the definition")
    files = dict(by_file)
    if target.index.language == "go" and not owner:
        folder = posixpath.dirname(attribution.rel) or "."
        found, _traversal = sources(ws, new, [folder], command=f"rename: is {new} free", topic=topic)
        for rel, text, index in found:
            if posixpath.dirname(rel) == posixpath.dirname(attribution.rel):
                texts.setdefault(rel, Source(rel, text, index))
                files.setdefault(rel, [])
    for rel, sites in files.items():
        source = texts[rel]
        for o in occurrences(source.text, source.index.language, source.index.symbols, (new,)):
            where = f"{rel}:{o.line}:{o.column}"
            top = o.role == "import" or (o.role in ("definition", "use") and not o.container)
            if o.binds and top and (not owner or rel != attribution.rel or o.role == "import"):
                raise _taken(new, where, "at the top of the file")
            if o.role in ("local", "parameter") and any(
                    s.occurrence.container == o.container or s.occurrence.container.startswith(o.container + ".")
                    for s in sites if s.occurrence.role != "definition"):
                raise _taken(new, where, f"as a {o.role} of #{o.container}, where a renamed use would see it")
            if owner and o.role == "member" and o.own and o.container.startswith(owner + "."):
                raise _taken(new, where, f"as a member of {owner}")


def _taken(new: str, where: str, how: str) -> StringError:
    return StringError("NAME_TAKEN", f"{new} is already defined {how} ({where}); nothing was written.",
                       f"Choose another name, or rename that one first: /symbols --refs {command_word(new)}")


def _file(ws: Workspace, rel: str, planned: str, sites: list[Site], old: str, new: str, topic: str,
          seen: dict[str, str] | None) -> FileRename:
    """One file's new bytes: each site's name replaced in the text as read now, encoded as the file is."""
    from stringsh.workspace import changed_since, encode_text

    file = ws.read_text(rel, topic=topic, legacy="edit")
    if file.text != planned:
        raise changed_since(file.rel, f"It changed while the rename was planned: run it again ({USAGE[7:]}).")
    data = file.text.encode("utf-8", "surrogatepass")
    spelled, wanted = old.encode("utf-8", "surrogatepass"), new.encode("utf-8", "surrogatepass")
    for site in sorted(sites, key=lambda s: -s.occurrence.start_byte):
        start = site.occurrence.start_byte
        if data[start : start + len(spelled)] != spelled:  # the parse and the text disagree: never guess
            raise StringError("CONFLICT", f"{rel} does not hold {old} at line {site.occurrence.line}; nothing was "
                              "written.", f"Read it again: /open {command_word(rel)}")
        data = data[:start] + wanted + data[start + len(spelled) :]
    text = data.decode("utf-8", "surrogatepass")
    expected = seen.get(file.rel, file.sha256) if seen is not None else file.sha256
    return FileRename(file.rel, file.text, text, encode_text(text, file.encoding, file.bom, file.rel), expected,
                      len(sites), file.sha256)
