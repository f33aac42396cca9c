"""A CLI action's command line read as bash reads it, for the small subset a value may enter.

The reader knows simple commands (words, assignments, redirections) joined by `;`, `&`, `&&`, `||`, `|` and `|&`,
with `!` before a pipeline, and every kind of word bash has: plain text, `\\x`, `'…'`, `"…"`, `$'…'`, `$"…"`,
`$NAME`, `${…}`, `$(…)`, backticks, `$((…))`, `$[…]`, globs and braces. Everything else bash accepts (`if`, `for`,
`case`, `[[ … ]]`, `{ …; }`, subshells, functions, here-documents, process substitution, `((…))` …) it does not
read: it raises `NotUnderstood`, and `shellscan` refuses every value of such a line. What it reads it reads
exactly, so a placeholder it places in a word of a command is there for bash too.

Each `{placeholder}` becomes a `Slot`: its quoting context (`unquoted`, `double`, `single`, `ansi`) decides how
`cli.build_command` writes the reference to the value; a placeholder inside an expansion (`$(…)`, `${…}`,
arithmetic, backticks) or directly after a backslash is refused here already.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PLACEHOLDER = re.compile(r"\{(\.\.\.args|[A-Za-z_]\w*)(?:\[(\d+)\])?\}")
#: Unquoted characters that end a word.
BREAKS = frozenset(" \t\n;&|<>()")
#: Words that start a compound command (or are bash syntax) at the start of a command: not read.
RESERVED = frozenset({"if", "then", "elif", "else", "fi", "for", "select", "while", "until", "do", "done", "case",
                      "esac", "in", "function", "coproc", "{", "}", "[[", "]]"})
REDIRECTIONS = ("<<<", "<<-", "<<", "&>>", "&>", ">>", ">|", ">&", "<&", "<>", ">", "<")
PARAM_TEXT = re.compile(r"[A-Za-z0-9_#!:\-+=?%/^,@*. \[\]~]")
INSIDE_COMMAND = "stands inside $(…), not in a command of the line itself"
INSIDE_BACKTICKS = "stands inside backticks, not in a command of the line itself"
INSIDE_PARAM = "stands inside ${…}, whose operators bash evaluates"
AFTER_BACKSLASH = "stands directly after a backslash"


class NotUnderstood(Exception):
    """A construct the reader does not read (`what`, e.g. "`for`"), at offset `at`."""

    def __init__(self, what: str, at: int) -> None:
        super().__init__(what)
        self.what = what
        self.at = at


@dataclass
class Slot:
    """One placeholder: its span in the template, its name (`...args` for every flag) and index (`{f[1]}`), its
    quoting context and, when a value may not stand there, why (`stands inside $((…)), …`)."""

    start: int
    end: int
    name: str
    index: int | None
    context: str
    refusal: str | None = None

    @property
    def text(self) -> str:
        return "{" + self.name + (f"[{self.index}]" if self.index is not None else "") + "}"

    def refuse(self, why: str) -> None:
        """The first reason found is the one told."""
        self.refusal = self.refusal or why


@dataclass
class Word:
    """One word: its span, its text after quote removal (`literal`, meaningful when `plain`), the placeholders
    standing in it (not those inside its expansions), whether bash may make it several words or none (`expands`:
    an unquoted `$`, glob, brace or tilde) and whether its text is not known here (`opaque`: any expansion, `$'…'`)."""

    start: int
    end: int = 0
    literal: str = ""
    slots: list[Slot] = field(default_factory=list)
    expands: bool = False
    opaque: bool = False

    @property
    def plain(self) -> bool:
        """Fixed text written on the page: no placeholder, no expansion."""
        return not self.slots and not self.expands and not self.opaque


@dataclass
class Command:
    """A simple command: its words (assignments first) and its redirections' words; `pipe` when its output goes
    to the next command."""

    words: list[Word] = field(default_factory=list)
    redirects: list[Word] = field(default_factory=list)
    pipe: bool = False
    arithmetic: bool = False


class Reader:
    """Reads one command line; `read()` returns its commands and fills `slots` with every placeholder in order."""

    def __init__(self, text: str, offset: int = 0, inside: str | None = None) -> None:
        self.text = text
        self.i = 0
        self.offset = offset  # where `text` starts in the template (backticks are read as their own line)
        self.slots: list[Slot] = []
        self.inside: list[str] = [inside] if inside else []
        #: Whether the line reads the positional parameters (`$1`, `"$@"`, `${!x}`; `$_`, the previous command's last
        #: argument): they hold the values.
        self.positional = False

    def fail(self, what: str) -> NotUnderstood:
        return NotUnderstood(what, self.offset + self.i)

    def slot(self, match: re.Match[str], context: str, refusal: str | None = None) -> Slot:
        refusal = refusal or (self.inside[-1] if self.inside else None)
        index = match.group(2)
        slot = Slot(self.offset + match.start(), self.offset + match.end(), match.group(1),
                    int(index) if index is not None else None, context, refusal)
        self.slots.append(slot)
        self.i = match.end()
        return slot

    # -- commands ------------------------------------------------------------------------------------------------

    def read(self, closer: str = "") -> list[Command]:
        """Commands up to `closer` (`)` of a `$(…)`) or the end."""
        text, commands, command = self.text, [], Command()

        def finish(pipe: bool = False) -> Command:
            if command.words or command.redirects or command.arithmetic:
                command.pipe = pipe
                commands.append(command)
            return Command()

        while True:
            self.blanks()
            if self.i >= len(text):
                if closer:
                    raise self.fail("an unclosed $(")
                finish()
                return commands
            c = text[self.i]
            if closer and c == closer:
                self.i += 1
                finish()
                return commands
            if c == "#":
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            elif c in ";\n":
                if text.startswith((";;", ";&"), self.i):
                    raise self.fail("`;;`")
                self.i += 1
                command = finish()
            elif text.startswith(("&&", "||"), self.i):
                self.i += 2
                command = finish()
            elif text.startswith("|&", self.i) or c == "|":
                self.i += 2 if text.startswith("|&", self.i) else 1
                command = finish(pipe=True)
            elif c == "&" and not text.startswith("&>", self.i):
                self.i += 1
                command = finish()
            elif c in "<>&":
                self.redirect(command)
            elif c == "(" and text.startswith("((", self.i) and not command.words:
                self.i += 2
                self.arithmetic("))", "stands inside ((…)), which bash evaluates as arithmetic")
                command.arithmetic = True
            elif c in "()":
                raise self.fail("a subshell or function `(…)`" if c == "(" else "`)`")
            else:
                self.word_or_redirect(command)

    def word_or_redirect(self, command: Command) -> None:
        word = self.word()
        raw = self.text[word.start - self.offset : word.end - self.offset]
        if raw.isdigit() and self.text.startswith(("<", ">"), self.i):  # `2>file`: a file descriptor
            self.redirect(command)
            return
        if not command.words and not command.redirects and not command.arithmetic:
            if raw == "!":
                return
            if raw in RESERVED:
                raise NotUnderstood(f"`{raw}`", word.start)
        if command.arithmetic:
            raise NotUnderstood("a word after `((…))`", word.start)
        command.words.append(word)

    def redirect(self, command: Command) -> None:
        text = self.text
        if text.startswith(("<(", ">("), self.i):
            raise self.fail("a process substitution")
        operator = next(op for op in REDIRECTIONS if text.startswith(op, self.i))
        if operator in ("<<", "<<-"):
            raise self.fail("a here-document (`<<`)")
        self.i += len(operator)
        self.blanks()
        if self.i >= len(text) or text[self.i] in BREAKS:
            raise self.fail(f"`{operator}` without a word")
        command.redirects.append(self.word())

    def blanks(self) -> None:
        text = self.text
        while self.i < len(text):
            if text[self.i] in " \t":
                self.i += 1
            elif text.startswith("\\\n", self.i):
                self.i += 2
            else:
                return

    # -- words ---------------------------------------------------------------------------------------------------

    def word(self) -> Word:
        text = self.text
        word = Word(self.offset + self.i)
        while self.i < len(text):
            c = text[self.i]
            if c in BREAKS:
                break
            match = PLACEHOLDER.match(text, self.i)
            if match:
                word.slots.append(self.slot(match, "unquoted"))
            elif c == "\\":
                self.backslash(word, "unquoted")
            elif c == "'":
                self.single(word)
            elif text.startswith("$'", self.i):
                self.ansi(word)
            elif text.startswith('$"', self.i):
                self.i += 1
                self.double(word)
            elif c == '"':
                self.double(word)
            elif c == "$":
                self.dollar(word)
            elif c == "`":
                self.backticks(word, quoted=False)
            else:
                word.expands = word.expands or c in "*?[{}" or (c == "~" and self.offset + self.i == word.start)
                word.literal += c
                self.i += 1
        word.end = self.offset + self.i
        return word

    def backslash(self, word: Word, context: str) -> None:
        text = self.text
        match = PLACEHOLDER.match(text, self.i + 1)
        if match:
            word.slots.append(self.slot(match, context, AFTER_BACKSLASH))
            return
        if self.i + 1 >= len(text):
            raise self.fail("a backslash at the end")
        if text[self.i + 1] != "\n":
            word.literal += text[self.i + 1]
        self.i += 2

    def single(self, word: Word) -> None:
        text = self.text
        end = text.find("'", self.i + 1)
        if end < 0:
            raise self.fail("an unclosed '")
        self.i += 1
        while self.i < end:
            match = PLACEHOLDER.match(text, self.i)
            if match and match.end() <= end:
                word.slots.append(self.slot(match, "single"))
            else:
                word.literal += text[self.i]
                self.i += 1
        self.i = end + 1

    def ansi(self, word: Word) -> None:
        text = self.text
        self.i += 2
        word.opaque = True  # its escapes are not read here: never a command name
        while self.i < len(text) and text[self.i] != "'":
            match = PLACEHOLDER.match(text, self.i)
            if match:
                word.slots.append(self.slot(match, "ansi"))
            elif text[self.i] == "\\":
                after = PLACEHOLDER.match(text, self.i + 1)
                if after:
                    word.slots.append(self.slot(after, "ansi", AFTER_BACKSLASH))
                else:
                    self.i += 2
            else:
                self.i += 1
        if self.i >= len(text):
            raise self.fail("an unclosed $'")
        self.i += 1

    def double(self, word: Word) -> None:
        text = self.text
        self.i += 1
        while self.i < len(text) and text[self.i] != '"':
            c = text[self.i]
            match = PLACEHOLDER.match(text, self.i)
            if match:
                word.slots.append(self.slot(match, "double"))
            elif c == "\\":
                if not PLACEHOLDER.match(text, self.i + 1) and text[self.i + 1 : self.i + 2] not in "$`\"\\\n":
                    word.literal += "\\"  # inside "…" a backslash escapes only $ ` " \\ and a newline
                self.backslash(word, "double")
            elif c == "$":
                self.dollar(word, quoted=True)
            elif c == "`":
                self.backticks(word, quoted=True)
            else:
                word.literal += c
                self.i += 1
        if self.i >= len(text):
            raise self.fail('an unclosed "')
        self.i += 1

    # -- expansions ----------------------------------------------------------------------------------------------

    def dollar(self, word: Word, quoted: bool = False) -> None:
        text, at = self.text, self.i
        name = re.compile(r"\$(?:[A-Za-z_]\w*|[0-9@*#?$!-])").match(text, at)
        if text.startswith("$((", at):
            self.i += 3
            self.arithmetic("))", "stands inside $((…)), which bash evaluates as arithmetic")
        elif text.startswith("$(", at):
            self.i += 2
            self.inside.append(INSIDE_COMMAND)
            self.read(")")
            self.inside.pop()
        elif text.startswith("${", at):
            self.i += 2
            self.parameter()
        elif text.startswith("$[", at):
            self.i += 2
            self.arithmetic("]", "stands inside $[…], which bash evaluates as arithmetic")
        elif name:
            self.positional = self.positional or text[at + 1] in "123456789@*" or name.group() == "$_"
            self.i = name.end()
        else:
            word.literal += "$"
            self.i += 1
            return
        word.expands = word.expands or not quoted
        word.opaque = True

    def parameter(self) -> None:
        """`${…}` up to its `}`: names, operators and nested expansions; quotes and escapes are not read."""
        text = self.text
        self.inside.append(INSIDE_PARAM)
        head = text[self.i : self.i + 2]
        self.positional = self.positional or head[:1] in tuple("123456789@*!") or (
            head[:1] == "#" and head[1:] in tuple("123456789@*")) or re.match(r"#?_\W", text[self.i : self.i + 3])
        self.positional = bool(self.positional)
        while self.i < len(text) and text[self.i] != "}":
            match = PLACEHOLDER.match(text, self.i)
            if match:
                self.slot(match, "param")
            elif text[self.i] == "$":
                self.dollar(Word(0), quoted=True)
            elif PARAM_TEXT.match(text[self.i]):
                self.i += 1
            else:
                raise self.fail(f"`{text[self.i]}` inside ${{…}}")
        if self.i >= len(text):
            raise self.fail("an unclosed ${")
        self.inside.pop()
        self.i += 1

    def arithmetic(self, closer: str, refusal: str) -> None:
        text, depth = self.text, 0
        self.inside.append(refusal)
        opening, closing = ("[", "]") if closer == "]" else ("(", ")")
        while True:
            if self.i >= len(text):
                raise self.fail("an unclosed arithmetic expansion")
            c = text[self.i]
            match = PLACEHOLDER.match(text, self.i)
            if match:
                self.slot(match, "arith")
            elif depth == 0 and text.startswith(closer, self.i):
                self.i += len(closer)
                break
            elif c == opening:
                depth += 1
                self.i += 1
            elif c == closing:
                if depth == 0:
                    raise self.fail("an arithmetic expansion that does not close as written")
                depth -= 1
                self.i += 1
            elif c == "$":
                self.dollar(Word(0), quoted=True)
            elif c == '"':
                self.double(Word(0))
            elif c == "`":
                self.backticks(Word(0), quoted=True)
            elif c in "'\\":
                raise self.fail(f"`{c}` in arithmetic")
            else:
                self.i += 1
        self.inside.pop()

    def backticks(self, word: Word, quoted: bool) -> None:
        """A backtick substitution ends at the next backtick when it holds no backslash: read as a line of its own."""
        text = self.text
        end = text.find("`", self.i + 1)
        if end < 0:
            raise self.fail("an unclosed backtick")
        inner = text[self.i + 1 : end]
        if "\\" in inner or (quoted and '"' in inner):
            raise self.fail("backticks holding a backslash or a quote (use $(…))")
        reader = Reader(inner, self.offset + self.i + 1, INSIDE_BACKTICKS)
        reader.read()
        self.slots += reader.slots
        self.positional = self.positional or reader.positional
        self.i = end + 1
        word.expands = word.expands or not quoted
        word.opaque = True


POSITIONAL = NotUnderstood("a reference to the positional parameters ($1, $@, ${!x}, $_ …), which hold the values",
                           0)


def read_line(text: str) -> tuple[list[Command], list[Slot], NotUnderstood | None]:
    """The commands and slots of a command line; when a construct is not read, the commands are empty, the slots
    after it are found as text, and the construct is returned (`POSITIONAL` for a line that reads the values
    through `$1`, `"$@"` … rather than its placeholders)."""
    reader = Reader(text)
    try:
        commands = reader.read()
        if reader.positional:
            return [], reader.slots, POSITIONAL
    except NotUnderstood as trouble:
        seen = {slot.start for slot in reader.slots}
        after = max((slot.end for slot in reader.slots), default=0)
        for match in PLACEHOLDER.finditer(text, after):
            if match.start() not in seen:
                index = match.group(2)
                reader.slots.append(Slot(match.start(), match.end(), match.group(1),
                                         int(index) if index is not None else None, "unquoted"))
        return [], reader.slots, trouble
    return commands, reader.slots, None
