"""Completion for the header line: command names, paths, `#block` ids, `@shortcuts`, `/act` names and flags,
`{variables}`. Pure reading of Sources; the app wraps it in a ThreadedCompleter so typing never waits on it.
"""

from __future__ import annotations

import logging
import re
import shlex
from collections.abc import Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from stringsh.escapes import NAME_CONTROLS, shown_name
from stringsh.hints import shell_word
from stringsh.protocol.request import REQUEST_ID
from stringsh.repl.sources import Sources

log = logging.getLogger(__name__)
FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)")
#: Placeholders in syntax strings that look like flags but are not real ones.
NOT_FLAGS = frozenset({"--flag"})
#: Words in a command's syntax that say it takes a workspace path.
PATH_WORDS = ("path", "file", "folder", "dir", "target")
#: The lines of a bash topic or `/bash` mode that do not reach bash.
BASH_META = (
    ("//help", "what bash mode does"),
    ("//info", "the shell's cwd, pid, sandbox and variables"),
    ("//close", "end this shell"),
    ("//exit", "back to String Commands"),
)
#: `/nav` arguments besides the page's menu names.
NAV_WORDS = (("page", "the page's shortcuts"), ("scaffold", "a menu file to start from"))
#: Extra arguments `/help` accepts besides command names.
HELP_TOPICS = ("errors",)


def last_word(text: str) -> str:
    """The word being typed: after the last whitespace that is not inside quotes."""
    quote = ""
    start = 0
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char.isspace():
            start = index + 1
    return text[start:]


def unquote(word: str) -> str:
    """A path word as the request parser reads it: `'my folder/a b.md'` or an unclosed `"my folder/a b.md`."""
    if "'" not in word and '"' not in word:
        return word
    for closing in ("", "'", '"'):
        try:
            parts = shlex.split(word + closing)
        except ValueError:
            continue
        return parts[0] if len(parts) == 1 else word
    return word


def header_words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


class StringCompleter(Completer):
    """Decides what the word under the cursor is and asks Sources for candidates."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        if "\n" in text:
            return  # body lines are content, not commands
        try:
            yield from self._complete(text)
        except Exception:
            log.debug("completion failed for %r", text, exc_info=True)
            return  # a bug here must never break typing (the tests assert every source's candidates exactly)

    def _complete(self, text: str) -> Iterator[Completion]:
        session = self.sources.session
        shell = session.kind == "bash" or session.bash_mode
        text = REQUEST_ID.sub("", text.lstrip(), count=1)
        stripped = text.lstrip()
        word = last_word(stripped)
        if shell and stripped.startswith("//") and stripped == word:
            yield from _matching(word, BASH_META, word)
            return
        if shell or stripped.startswith("!"):
            command_line = stripped[1:] if stripped.startswith("!") and not shell else stripped
            if command_line.strip() != word.lstrip("!"):
                yield from self._shell_word(word)
            return
        if not stripped.startswith("/"):
            return
        if stripped == word:
            yield from self.command_names(word)
            return
        name = stripped[1:].split(None, 1)[0].lower().lstrip("/")
        yield from self._argument(name, stripped, word)

    def _shell_word(self, word: str) -> Iterator[Completion]:
        """Arguments of a shell command: variables, or paths relative to the shell's folder."""
        if "{" in word and "}" not in word[word.rindex("{") :]:
            yield from self.variable_names(word[word.rindex("{") :])
        elif not word.startswith(("-", "$", "~")):
            yield from self.paths(word, base=self.sources.shell_folder(), shell=True)

    def _argument(self, name: str, stripped: str, word: str) -> Iterator[Completion]:
        brace = word.rfind("{")
        if brace >= 0 and "}" not in word[brace:]:
            yield from self.variable_names(word[brace:])
            return
        action = name[4:] if name.startswith("act.") else None
        if name == "act" and action is None:
            words = header_words(stripped)
            typed_args = words[1:] if word == "" else words[1:-1]
            if typed_args:
                action = typed_args[0]
            elif not word.startswith("-"):
                yield from self.action_names(word, prefix="")
                return
        if word.startswith("-"):
            if action:
                flags = self.sources.action_flags(action)
            elif name == "act":
                flags = [("--help", "every action's flags")]
            else:
                flags = self.syntax_flags(name)
            yield from _matching(word, flags, word)
            return
        if action is not None:
            return
        if name == "exec":
            if len(header_words(stripped)) > (1 if word else 0) + 1:
                yield from self._shell_word(word)
            return
        if name == "nav":
            if len(header_words(stripped)) <= (2 if word else 1):
                yield from _matching(word, [*self.sources.menus(), *NAV_WORDS], word)
            return
        if word.startswith("@"):
            yield from self.shortcut_names(word)
        elif "#" in word:
            yield from self.block_ids(word)
        elif name == "help":
            yield from self.help_topics(word)
        elif self.takes_path(name):
            yield from self.paths(word)

    # candidates -----------------------------------------------------------------------------------------

    def command_names(self, word: str) -> Iterator[Completion]:
        typed = word[2:] if word.startswith("//") else word[1:]
        lead = word[: len(word) - len(typed)]
        if typed.lower().startswith("act."):
            yield from self.action_names(typed[4:], prefix=f"{lead}act.", replace=len(word))
            return
        for name, summary, _syntax in self.sources.commands():
            if name.startswith(typed.lower()):
                yield Completion(lead + name, -len(word), display=f"/{name}", display_meta=summary)

    def help_topics(self, word: str) -> Iterator[Completion]:
        names = [(name, summary) for name, summary, _syntax in self.sources.commands()]
        names += [(topic, "help page") for topic in HELP_TOPICS]
        yield from _matching(word.lstrip("/"), names, word)

    def action_names(self, typed: str, *, prefix: str, replace: int | None = None) -> Iterator[Completion]:
        for name, action in sorted(self.sources.actions().items()):
            if name.startswith(typed):
                meta = action.description or action.method or "action"
                yield Completion(prefix + name, -(replace if replace is not None else len(typed)), display_meta=meta)

    def syntax_flags(self, name: str) -> list[tuple[str, str]]:
        for command, _summary, syntax in self.sources.commands():
            if command == name:
                found = dict.fromkeys(FLAG.findall(syntax.partition(" ")[2]))
                return [(flag, "") for flag in found if flag not in NOT_FLAGS]
        return []

    def takes_path(self, name: str) -> bool:
        for command, _summary, syntax in self.sources.commands():
            if command == name:
                arguments = syntax.partition(" ")[2].lower()
                return any(key in arguments for key in PATH_WORDS)
        return False

    def paths(self, word: str, base: str | None = "", *, shell: bool = False) -> Iterator[Completion]:
        """Entries of the folder the word names; `base` is the folder it is relative to (None: unknown); `shell`:
        the word is a bash word, not a String Commands path."""
        if base is None:
            return
        quote = word[0] if word[:1] in ("'", '"') else ""
        typed = word[len(quote) :]
        if typed.startswith("/"):
            return  # absolute paths are outside the workspace
        root = ""
        if not base:  # a workspace path (not a shell word): it may name another root, `docs:guide.md`
            ids = self.root_ids()
            head, colon, _ = typed.partition("/")[0].partition(":")
            if colon and head in ids:
                root, typed = head + ":", typed[len(head) + 1 :]
            elif "/" not in typed and ":" not in typed and not quote:
                yield from _matching(typed, [(ident + ":", meta) for ident, meta in ids.items()], word)
        folder, _, prefix = typed.rpartition("/")
        inner = "/".join(part for part in (base, folder) if part)
        entries = self.sources.list_dir(root + inner if root else inner or ".")
        show_hidden = prefix.startswith(".")
        ranked = sorted(entries, key=lambda item: (not item[1], item[0].casefold()))
        hits = [(n, d) for n, d in ranked if n.startswith(prefix) and (show_hidden or not n.startswith("."))]
        if not hits:
            lower = prefix.casefold()
            hits = [(n, d) for n, d in ranked if n.casefold().startswith(lower) and (show_hidden or n[:1] != ".")]
        base = root + (f"{folder}/" if folder else "")
        for name, is_dir in hits:
            shown = name + ("/" if is_dir else "")
            full = base + shown
            if NAME_CONTROLS.search(full) is not None:
                yield _odd_name(full, shown_name(name) + ("/" if is_dir else ""), word, shell=shell)
            elif quote or any(c.isspace() or c in "'\"\\" for c in full):
                # a folder keeps its quote open so the next Tab continues inside it
                text = shlex.quote(full) if not is_dir else "'" + full.replace("'", "'\\''")
                yield Completion(text, -len(word), display=shown)
            else:
                yield Completion(full, -len(word), display=shown, display_meta="folder" if is_dir else None)

    def root_ids(self) -> dict[str, str]:
        """The policy's roots by id (each with its mode), when it names more than one; else none: `id:` is then
        no syntax of its own."""
        roots = self.sources.workspace.confiner.root_list()
        return {ident: f"root, {mode}" for ident, _folder, mode in roots} if len(roots) > 1 else {}

    def block_ids(self, word: str) -> Iterator[Completion]:
        path, _, typed = word.rpartition("#")
        path = unquote(path)
        ids = self.sources.blocks(path or None)
        open_path = self.sources.open_path()
        meta = f"block of {path or open_path or 'the open document'}"
        for block in ids:
            if block.startswith(typed):
                yield Completion(block, -len(typed), display=f"#{block}", display_meta=meta)

    def shortcut_names(self, word: str) -> Iterator[Completion]:
        typed = word[1:]
        for name, label in self.sources.shortcuts():
            if name.startswith(typed):
                yield Completion("@" + name, -len(word), display_meta=label or "shortcut")

    def variable_names(self, word: str) -> Iterator[Completion]:
        typed = word[1:]
        for name, value in sorted(self.sources.variables().items()):
            if name.startswith(typed):
                shown = value if len(value) <= 30 else value[:29] + "…"
                yield Completion("{" + name + "}", -len(word), display_meta=shown.replace("\n", "⏎"))


def _odd_name(full: str, display: str, word: str, *, shell: bool) -> Completion:
    """A name holding a control or a byte that was not UTF-8, shown escaped as every reply shows it: in a bash
    word its exact bytes as bash's `$'…'` form; on a String Commands line its escaped form, which the engine
    refuses with a hint saying how to reach it (it reaches only UTF-8 names that can be typed)."""
    return Completion(shell_word(full) if shell else shown_name(full), -len(word), display=display)


def _matching(word: str, candidates: Iterable[tuple[str, str]], replaced: str) -> Iterator[Completion]:
    for value, meta in candidates:
        if value.startswith(word):
            yield Completion(value, -len(replaced), display_meta=meta or None)
