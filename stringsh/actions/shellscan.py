"""Where each `{placeholder}` of a CLI action's command line stands, in bash's quoting contexts.

A value never becomes part of the command's text: `cli.build_command` passes it as a positional parameter and
puts a reference (`"${1}"`, `${1}`, `'"${1}"'`) where the placeholder was. Bash never re-reads what a parameter
expands to as shell syntax, except where it evaluates text: arithmetic (`$((…))`, `((…))`, `$[…]`, `let`, the
`-eq`/`-v` tests of `[[ … ]]`, array subscripts, integer variables), `${…}` operators, and builtins that take code
or variable names (`eval`, `trap`, `source`, `read`, `declare`, `printf -v`, …). This scanner finds the quoting
context of every placeholder and why one cannot stand where it is (`Slot.refusal`); such a template is refused,
nothing runs. It reads the one-line command as bash does, closely enough that a mistake here can only make a
reference quoted differently (word splitting), never make a value code: the refusals cover every place where bash
evaluates expanded text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PLACEHOLDER = re.compile(r"\{(\.\.\.args|[A-Za-z_]\w*)(?:\[(\d+)\])?\}")
ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*(\[[^\]]*\])?\+?=")
#: Builtins whose arguments bash evaluates as code or reads as variable names (whose subscripts it evaluates).
EVALUATING = {"eval", "let", "trap", "source", ".", "alias", "enable", "fc", "complete", "compgen", "bind", "read",
              "mapfile", "readarray", "unset", "getopts", "wait", "hash", "shopt", "set"}
DECLARING = {"declare", "typeset", "local", "readonly", "export"}
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "busybox"}
PREFIXES = {"command", "builtin", "exec"}
#: First words that end a command without being one (`if cmd`, `! cmd`, `{ cmd; }`).
RESERVED = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time", "esac"}
TEST_EVALUATING = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"}


@dataclass
class Slot:
    """One placeholder: its span in the template, its name (`...args` for every flag) and index (`{f[1]}`), its
    quoting context (`unquoted`, `double`, `single`, `ansi`; `param`/`arith` are always refused) and, when a value
    may not stand there, the context named for the error (`inside $((…))`)."""

    start: int
    end: int
    name: str
    index: int | None
    context: str
    refusal: str | None = None

    @property
    def text(self) -> str:
        return "{" + self.name + (f"[{self.index}]" if self.index is not None else "") + "}"


@dataclass
class Frame:
    """One nesting level: a command level (`top`: the line, `$(…)`, `(…)`, `<(…)`, backticks), a quote, `${…}` or
    arithmetic. A command level collects the words of its current command and the slots inside each."""

    kind: str
    closer: str = ""
    label: str = ""
    inside_double: bool = False
    depth: int = 0
    slots: list[int] = field(default_factory=list)
    backslash: bool = False
    words: list[tuple[int, int]] = field(default_factory=list)
    word_start: int | None = None
    cmd_slots: list[tuple[int, int]] = field(default_factory=list)
    redirects: set[int] = field(default_factory=set)
    redirect_next: bool = False

    @property
    def testing(self) -> bool:
        return bool(self.words) and self.words[0] == (-1, -1)


class Scanner:
    """Reads a command line once, left to right, keeping a stack of frames; `scan()` is the entry point."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.slots: list[Slot] = []
        self.stack: list[Frame] = [Frame("top", label="line")]
        self.integers: set[str] = set()

    # -- words and commands of a command level -------------------------------------------------------------------

    def start_word(self, frame: Frame, at: int) -> None:
        if frame.kind == "top" and frame.word_start is None:
            frame.word_start = at

    def end_word(self, frame: Frame, at: int) -> None:
        if frame.word_start is None:
            return
        span = (frame.word_start, at)
        frame.word_start = None
        word = self.text[span[0] : span[1]]
        if frame.redirect_next:
            frame.redirects.add(len(frame.words))
            frame.redirect_next = False
        if not frame.words and word in RESERVED:
            return
        if not frame.words and word == "[[":
            frame.words.append((-1, -1))  # marks a `[[ … ]]` command: its operators are words
            return
        frame.words.append(span)

    def end_command(self, frame: Frame, at: int) -> None:
        self.end_word(frame, at)
        if frame.words:
            self.judge(frame)  # also without slots: `declare -i n` makes a later `n={x}` arithmetic
        frame.words, frame.cmd_slots, frame.redirects, frame.redirect_next = [], [], set(), False

    def word(self, frame: Frame, index: int) -> str:
        start, end = frame.words[index] if index < len(frame.words) else (0, 0)
        return "[[" if (start, end) == (-1, -1) else self.text[start:end]

    def judge(self, frame: Frame) -> None:
        """Refuse the slots of a finished command whose words bash would evaluate."""
        words = [self.word(frame, i) for i in range(len(frame.words))]
        name_at = next(
            (i for i, w in enumerate(words) if i not in frame.redirects and not ASSIGNMENT.match(w)), len(words)
        )
        while name_at < len(words) and (words[name_at] in PREFIXES or (
            name_at > 0 and words[name_at - 1] in PREFIXES and words[name_at].startswith("-")
        )):
            name_at += 1
        name = words[name_at] if name_at < len(words) else ""
        options = [w for w in words[name_at + 1 :] if w.startswith(("-", "+"))]
        if name in DECLARING and any("i" in o for o in options):
            self.integers.update(w.split("=", 1)[0] for w in words[name_at + 1 :] if not w.startswith(("-", "+")))
        shell_script: dict[int, str] = {}  # `sh -c SCRIPT`, `sudo bash -ec SCRIPT`: the word a shell runs as code
        for i, candidate in enumerate(words):
            if candidate.rsplit("/", 1)[-1] not in SHELLS:
                continue
            j, runs_script = i + 1, False
            while j < len(words) and words[j].startswith("-"):
                runs_script = runs_script or ("c" in words[j][1:] and not words[j].startswith("--"))
                j += 1
            if runs_script:
                shell_script[j] = candidate.rsplit("/", 1)[-1]
        for slot_index, at in frame.cmd_slots:
            slot = self.slots[slot_index]
            if slot.refusal is not None:
                continue
            slot.refusal = self.refusal(words, at, name_at, name, options, shell_script, frame)

    def refusal(self, words: list[str], at: int, name_at: int, name: str, options: list[str],
                shell_script: dict[int, str], frame: Frame) -> str | None:
        word = words[at] if at < len(words) else ""
        if at in frame.redirects:
            return None
        if at < name_at:  # an assignment, or `command`/`exec` and their options
            target = ASSIGNMENT.match(word)
            if target and target.group(1):
                return "in an array subscript"
            if target and word.split("=", 1)[0].rstrip("+") in self.integers:
                return "in the value of an integer variable"
            return None
        if at == name_at:
            return "as the command name"
        if name == "[[" and TEST_EVALUATING & set(words):
            return "in an arithmetic or -v test of [[ … ]]"
        if name in ("test", "[") and {"-v", "-R"} & set(words):
            return f"in a -v test of {name}"
        if name in EVALUATING or (name == "printf" and any(o.startswith("-v") for o in options)):
            return f"in an argument of {name}{' -v' if name == 'printf' else ''}"
        if name in DECLARING:
            if options:
                return f"in an argument of {name} {options[0]}"
            equals = word.find("=")
            slot_starts = [self.slots[k] for k, a in frame.cmd_slots if a == at]
            start = frame.words[at][0]
            if equals < 0 or any(s.start - start < equals for s in slot_starts):
                return f"in a variable name of {name}"
            if ASSIGNMENT.match(word) and word.split("=", 1)[0].rstrip("+") in self.integers:
                return "in the value of an integer variable"
        if at in shell_script:
            return f"as the script of {shell_script[at]} -c"
        return None

    # -- slots ---------------------------------------------------------------------------------------------------

    def add_slot(self, match: re.Match[str], context: str, refusal: str | None = None) -> int:
        name, index = match.group(1), match.group(2)
        for frame in reversed(self.stack):
            if refusal is None and frame.kind == "arith":
                refusal = f"inside {frame.label}"
            if refusal is None and frame.kind == "param":
                refusal = "inside ${…}"
        if refusal is None and name == "...args" and context != "unquoted":
            refusal = "inside quotes ({...args} is several words)"
        slot = Slot(match.start(), match.end(), name, int(index) if index is not None else None, context, refusal)
        self.slots.append(slot)
        number = len(self.slots) - 1
        judged = True  # the value's text flows into the words of the commands around it, up to a `(…)`
        for frame in reversed(self.stack):
            frame.slots.append(number)
            if frame.kind == "top" and judged:
                self.start_word(frame, match.start())
                frame.cmd_slots.append((number, len(frame.words)))
                judged = frame.label != "(…)"
        return match.end()

    def push(self, frame: Frame, at: int, word: bool = True) -> None:
        """Enter a frame; it is part of the current word unless `word` is False (a `(…)` subshell, a `((…))`)."""
        top = self.stack[-1]
        if word:
            self.start_word(top, at)
        frame.inside_double = top.kind == "double" or (top.inside_double and top.kind != "top")
        self.stack.append(frame)

    def pop(self, at: int) -> None:
        frame = self.stack.pop()
        if frame.kind == "top":
            self.end_command(frame, at)
            if frame.closer == "`" and frame.backslash:
                for number in frame.slots:
                    slot = self.slots[number]
                    slot.refusal = slot.refusal or "inside backticks that hold a backslash (use $(…))"

    # -- the scan ------------------------------------------------------------------------------------------------

    def expansion(self, i: int) -> int | None:
        """`$((`, `$(`, `${`, `$[`, `$'`, `$"` or a backtick at `i`: push its frame, return where it continues."""
        text = self.text
        if text.startswith("$((", i):
            self.push(Frame("arith", "))", "$((…))"), i)
            return i + 3
        if text.startswith("$(", i):
            self.push(Frame("top", ")", "$(…)"), i)
            return i + 2
        if text.startswith("${", i):
            self.push(Frame("param", "}"), i)
            return i + 2
        if text.startswith("$[", i):
            self.push(Frame("arith", "]", "$[…]"), i)
            return i + 2
        if text.startswith("`", i):
            self.push(Frame("top", "`", "backticks"), i)
            return i + 1
        return None

    def escaped(self, i: int, context: str) -> int:
        """A backslash: the next character is literal; a placeholder right after it is refused."""
        match = PLACEHOLDER.match(self.text, i + 1)
        if match:
            return self.add_slot(match, context, "directly after a backslash")
        return i + 2

    def step(self, i: int) -> int:
        text, frame = self.text, self.stack[-1]
        c = text[i]
        if frame.kind == "single":
            if c == "'":
                self.pop(i)
                return i + 1
            match = PLACEHOLDER.match(text, i)
            return self.add_slot(match, "single") if match else i + 1
        if c == "\\":
            frame.backslash = True
            for outer in self.stack:
                outer.backslash = outer.backslash or outer.closer == "`"
            return self.escaped(i, "unquoted" if frame.kind == "top" else frame.kind)
        if frame.kind == "ansi":
            if c == "'":
                self.pop(i)
                return i + 1
            match = PLACEHOLDER.match(text, i)
            return self.add_slot(match, "ansi") if match else i + 1
        if frame.kind == "double":
            if c == '"':
                self.pop(i)
                return i + 1
            nxt = self.expansion(i) if c in "$`" else None
            if nxt is not None:
                return nxt
            match = PLACEHOLDER.match(text, i)
            return self.add_slot(match, "double") if match else i + 1
        if frame.kind in ("param", "arith"):
            return self.step_nested(i, frame)
        return self.step_top(i, frame)

    def step_nested(self, i: int, frame: Frame) -> int:
        text, c = self.text, self.text[i]
        if frame.kind == "param" and c == "}" and frame.depth == 0:
            self.pop(i)
            return i + 1
        if frame.kind == "arith" and frame.depth == 0 and text.startswith(frame.closer, i):
            self.pop(i)
            return i + len(frame.closer)
        if c in "$`":
            nxt = self.expansion(i)
            if nxt is not None:
                return nxt
        match = PLACEHOLDER.match(text, i)
        if match:
            return self.add_slot(match, frame.kind)
        if c == '"':
            self.push(Frame("double"), i)
        elif c == "'" and not frame.inside_double:
            self.push(Frame("single"), i)
        elif c == ("(" if frame.kind == "arith" else "{"):
            frame.depth += 1
        elif c == (")" if frame.kind == "arith" else "}") and frame.depth > 0:
            frame.depth -= 1
        return i + 1

    def step_top(self, i: int, frame: Frame) -> int:
        text, c = self.text, self.text[i]
        if c == frame.closer and frame.closer == "`":
            self.pop(i)
            return i + 1
        if c == "'":
            self.push(Frame("single"), i)
            return i + 1
        if c == '"':
            self.push(Frame("double"), i)
            return i + 1
        if text.startswith(("$'", '$"'), i):
            self.push(Frame("ansi" if text[i + 1] == "'" else "double"), i)
            return i + 2
        if c in "$`":
            nxt = self.expansion(i)
            if nxt is not None:
                return nxt
        match = PLACEHOLDER.match(text, i)
        if match:
            return self.add_slot(match, "unquoted")
        if c in " \t":
            self.end_word(frame, i)
            return i + 1
        if frame.testing and c not in ";\n":
            self.start_word(frame, i)
            if c == "]" and text.startswith("]]", i):
                self.end_word(frame, i)
                frame.words.append((i, i + 2))
                self.end_command(frame, i + 2)  # `]]` closes it: `&& cmd` may follow
                return i + 2
            return i + 1
        return self.operator(i, frame)

    def operator(self, i: int, frame: Frame) -> int:
        text, c = self.text, self.text[i]
        at_word_start = frame.word_start is None
        if c == ")" and frame.closer == ")":
            self.pop(i)
            return i + 1
        if at_word_start and text.startswith("((", i):
            self.push(Frame("arith", "))", "((…))"), i, word=False)
            return i + 2
        if at_word_start and (c == "(" or text.startswith(("<(", ">("), i)):
            self.push(Frame("top", ")", "(…)"), i, word=c != "(")  # `<(…)` is an argument, a subshell is not
            return i + (1 if c == "(" else 2)
        if c == "#" and at_word_start:
            return len(text)
        if c in "<>":
            word = text[frame.word_start : i] if frame.word_start is not None else ""
            if word.isdigit():
                frame.word_start = None
            else:
                self.end_word(frame, i)
            end = i
            while end < len(text) and text[end] in "<>&|":
                end += 1
            frame.redirect_next = True
            return end
        if c in ";&|\n()":
            self.end_command(frame, i)
            return i + 1
        self.start_word(frame, i)
        return i + 1


def scan(text: str) -> list[Slot]:
    """Every placeholder of a one-line command, in order, with its context and any refusal."""
    scanner = Scanner(text)
    i = 0
    while i < len(text):
        i = scanner.step(i)
    while scanner.stack:
        scanner.pop(len(text))
    return scanner.slots


def problem(slot: Slot) -> str:
    """What is wrong with a refused slot, for the error and for `/act.x --help`."""
    return f"{slot.text} stands {slot.refusal}, where bash would treat the value as code"


def template_problems(template: str, names: set[str]) -> list[str]:
    """Why a CLI template is refused: the refused placeholders among `names` (its declared fields; `{...args}`
    always), one line each. A session variable's `{var}` is checked when it has a value, as the action runs."""
    found = [problem(s) for s in scan(template) if s.refusal is not None and (s.name == "...args" or s.name in names)]
    return list(dict.fromkeys(found))
