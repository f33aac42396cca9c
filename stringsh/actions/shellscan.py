"""Where a CLI action's `{placeholder}` may stand: an allowlist, checked when the page is read.

A value never becomes part of the command's text: `cli.build_command` passes it as a positional parameter and
writes a reference (`"${1}"`, `${1}` inside `"…"`, …) where the placeholder was. That keeps it data for bash's own
parsing, but not for what then reads it: bash evaluates an assignment to `RANDOM` as arithmetic, `bash -c` runs
its script, `awk` its program. So a placeholder may stand only where the value is one argument of a simple command
whose name is written on the page and is not on the documented lists of programs that run their arguments as code
(`shellprograms`); wrappers (`env`, `timeout`, `sudo`, …) are followed to the command they run, and the rule is
applied there. Everything else is refused with the reason (`Slot.refusal`): the command line is read by
`shellwords`, and what it does not read takes no values at all.
"""

from __future__ import annotations

import re

from stringsh.actions import shellprograms as P
from stringsh.actions.shellwords import POSITIONAL, RESERVED, Command, Slot, Word, read_line

ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)(\[[^\]]*\])?\+?=")
#: The rule, for the error's hint and `/act.x --help`.
RULE = ("A value may only be one argument of a simple command whose name is written on the page and that does not "
        "run its arguments as code (see /help act).")


def raw(template: str, word: Word) -> str:
    return template[word.start : word.end]


class Judge:
    """Sets the refusal of every slot of one command line."""

    def __init__(self, template: str, commands: list[Command], slots: list[Slot]) -> None:
        self.template = template
        self.commands = commands
        self.slots = slots

    def run(self) -> None:
        pipeline: list[tuple[Command, str | None]] = []
        for command in self.commands:
            pipeline.append((command, self.command(command)))
            if not command.pipe:
                self.pipeline(pipeline)
                pipeline = []
        self.pipeline(pipeline)
        changing = next((why for command in self.commands if (why := self.changes_state(command))), None)
        for slot in self.slots if changing else ():
            slot.refuse(changing)  # after each command's own reason: `eval {v}` says eval runs it

    # -- one simple command ----------------------------------------------------------------------------------------

    def command(self, command: Command) -> str | None:
        """Judge the slots of one command; return the name of the program it runs (None when it runs none, the
        name in backticks when it is not written on the page)."""
        for word in command.redirects:
            for slot in word.slots:
                slot.refuse(f"stands in the word of a redirection (`{raw(self.template, word)}`)")
        words = command.words
        at = 0
        while at < len(words) and ASSIGNMENT.match(raw(self.template, words[at])):
            self.assignment(words[at])
            at += 1
        for word in words[at:]:
            if word.slots and ASSIGNMENT.match(raw(self.template, word)):
                self.assignment(word)
        return self.run_from(words, at) if at < len(words) else None

    def assignment(self, word: Word) -> None:
        match = ASSIGNMENT.match(raw(self.template, word))
        assert match is not None
        for slot in word.slots:
            slot.refuse(f"stands in an assignment to {match.group(1)}{match.group(2) or ''}")

    def rest(self, words: list[Word], why: str) -> None:
        for word in words:
            for slot in word.slots:
                slot.refuse(why)

    def run_from(self, words: list[Word], at: int) -> str | None:
        """`words[at]` is a command name: follow wrappers to the program that runs, then judge its arguments."""
        while True:
            word = words[at]
            if word.slots:
                self.rest([word], "stands as the command name")
                self.rest(words[at + 1 :], "is an argument of a command whose name is a value")
                return None
            name = raw(self.template, word)
            if name in RESERVED:  # `X=1 {`, `>out if`: bash syntax, not a program
                self.rest(words[at:], f"is on a line with `{name}` where bash reads a command name")
                return None
            if not word.plain and name != "[":
                self.rest(words[at + 1 :], f"is an argument of `{name}`, whose name is not written on the page")
                return f"`{name}`"
            base = P.program(word.literal if name != "[" else "[")
            if base.startswith("-") or not base:
                self.rest(words[at + 1 :], f"is an argument of `{name}`, which is not a command name")
                return None
            if base in P.WRAPPERS:
                found = self.wrapper(words, at, base)
                if found is None:
                    return None
                at = found
                continue
            self.arguments(words, at, base)
            return base

    def wrapper(self, words: list[Word], at: int, base: str) -> int | None:
        """The index of the command a wrapper runs; its own words take no value (one there may change what runs)."""
        spec = P.WRAPPERS[base]
        j, operands, ended = at + 1, spec.operands, False

        def refuse(why: str) -> None:
            self.rest(words[at + 1 :], why)

        while j < len(words):
            word = words[j]
            if word.slots:  # where the command would be, or an option's or an operand's place
                self.rest([word], "stands as the command name" if operands == 0 and not (
                    j > at + 1 and self.takes_arg(words[j - 1], spec)) and not raw(self.template, word).startswith("-")
                    else
                    f"is an argument of {base} before the command it runs")
                refuse(f"follows a value given to {base}, which may change what runs")
                return None
            if not word.plain:
                refuse(f"is an argument of a command {base} runs, which this check cannot tell: "
                       f"`{raw(self.template, word)}` is not written on the page")
                return None
            text = word.literal
            take = 1
            if spec.assignments and "=" in text and not ended:  # env's NAME=VALUE (any word with `=`)
                pass
            elif not ended and text == "--":
                ended = True
            elif not ended and text.startswith("--"):
                name, equals, _ = text[2:].partition("=")
                if name in spec.long_code:
                    refuse(f"is an argument of {base} --{name}, which runs its argument as a command line")
                    return None
                if name in spec.long_with_arg:
                    take = 1 if equals else 2
                elif name not in spec.long_flags:
                    refuse(f"is an argument of {base}, whose option --{name} this check does not know")
                    return None
            elif not ended and text.startswith("-") and (len(text) > 1 or base == "env"):
                if spec.number_flag and text[1:].isdigit():
                    j += 1
                    continue
                for position, letter in enumerate(text[1:] or "i"):
                    if letter in spec.code:
                        refuse(f"is an argument of {base} -{letter}, which runs its argument as a command line")
                        return None
                    if letter in spec.with_arg:
                        take = 2 if position == len(text) - 2 else 1
                        break
                    if letter not in spec.flags:
                        refuse(f"is an argument of {base}, whose option -{letter} this check does not know")
                        return None
            elif operands:
                operands -= 1
            elif text in spec.code_after_operands:
                refuse(f"is an argument of {base} {text}, which runs its argument as a command line")
                return None
            else:
                return j
            if take == 2:
                if j + 1 >= len(words):
                    return None
                if not words[j + 1].plain:
                    j += 1
                    continue  # judged as an option's argument on the next turn: a value or unknown text refuses
            j += take
        return None

    @staticmethod
    def takes_arg(word: Word, spec: P.Wrapper) -> bool:
        """Whether a wrapper's word is an option whose argument is the next word (`-n` of `nice -n 5`)."""
        text = word.literal
        if text.startswith("--"):
            return "=" not in text and text[2:] in spec.long_with_arg
        return text.startswith("-") and any(letter in spec.with_arg for letter in text[-1:])

    def arguments(self, words: list[Word], at: int, base: str) -> None:
        """The program `base` runs with `words[at + 1:]`: refuse the slots among them it would treat as code."""
        args = words[at + 1 :]
        if not any(word.slots for word in args):
            return
        kind = P.kind(base)
        if kind:
            self.rest(args, f"is an argument of {base}, {kind}")
        elif base in P.BUILTINS and base not in P.SAFE_BUILTINS:
            what = "an operand of" if base in ("test", "[") else "an argument of"
            self.rest(args, f"is {what} the builtin {base}, which values may not reach (they may reach "
                            "echo, printf, cd, pwd, type, help, true, false and :)")
        elif base == "printf":
            self.printf(args)
        elif base == "find":
            self.find(args)
        elif base == "git":
            self.git(args)
        elif base in P.DASHDASH:
            self.dashdash(args, base, f"{base}'s")
        for word in args:
            for slot in word.slots:
                if slot.name == "...args" and slot.context == "unquoted" and raw(self.template, word) != slot.text:
                    slot.refuse("stands inside a word ({...args} is several words)")
                elif slot.name == "...args" and slot.context != "unquoted":
                    slot.refuse("stands inside quotes ({...args} is several words)")

    def printf(self, args: list[Word]) -> None:
        """`printf FORMAT ARGS…`: the format must be written on the page (a value there could be `-v`)."""
        first = 1 if args and args[0].plain and args[0].literal == "--" else 0
        format_word = args[first] if first < len(args) else None
        if format_word is None or not format_word.plain or format_word.literal.startswith("-"):
            why = ("is an argument of printf -v, which assigns to a variable"
                   if format_word is not None and format_word.plain and format_word.literal.startswith("-v")
                   else "stands before or in printf's format, where a value could be -v (write the format first)")
            self.rest(args, why)

    def find(self, args: list[Word]) -> None:
        if any(word.plain and word.literal in P.FIND_EXEC for word in args):
            self.rest(args, "is an argument of find with -exec, which runs a command")
            return
        free = [word for i, word in enumerate(args) if word.slots and not (
            i > 0 and args[i - 1].plain and args[i - 1].literal.startswith("-") and len(args[i - 1].literal) > 2)]
        if len(free) > 1 or any(slot.name == "...args" for word in free for slot in word.slots):
            self.rest(args, "is one of several values standing alone in find's expression, which together "
                            "may form -exec")

    def git(self, args: list[Word]) -> None:
        j = 0
        while j < len(args):
            word = args[j]
            if word.slots:
                self.rest(args, "stands before git's subcommand, where git reads options that can run commands")
                return
            if not word.plain:
                self.rest(args, f"is an argument of git whose subcommand is not written on the page "
                                f"(`{raw(self.template, word)}`)")
                return
            text = word.literal
            if text in P.GIT_GLOBAL_WITH_ARG:
                if j + 1 < len(args) and not args[j + 1].plain:
                    j += 1  # the option's argument is judged as a word of its own: a value or unknown text refuses
                    continue
                j += 2
            elif text in P.GIT_GLOBAL_FLAGS or (text.startswith("--") and "=" in text):
                j += 1
            elif text.startswith("-"):
                self.rest(args, f"is an argument of git, whose option {text} this check does not know")
                return
            else:
                break
        if j >= len(args):
            return
        sub = args[j].literal
        if sub in P.GIT_DASHDASH:
            self.dashdash(args[j + 1 :], f"git {sub}", f"git {sub}'s")
        elif sub not in P.GIT_SAFE:
            self.rest(args, f"is an argument of git {sub}, a subcommand values may not reach (an alias or "
                            "a command like git config or git submodule can run commands)")

    def dashdash(self, args: list[Word], name: str, whose: str) -> None:
        """Options of `name` can run commands: a value must come after a literal `--`, and what is before it must
        be written on the page."""
        for word in args:
            if word.plain and word.literal == "--":
                return
            if word.slots:
                self.rest(args, f"is an argument of {name} before a literal --, where {whose} options can run "
                                "commands (write -- before it)")
                return
            if not word.plain:
                self.rest(args, f"is an argument of {name} after `{raw(self.template, word)}`, which is not "
                                "written on the page")
                return

    # -- the line ------------------------------------------------------------------------------------------------

    def changes_state(self, command: Command) -> str | None:
        """Why a command changes how bash reads or runs the rest of the line (`alias`, `set -k`); None if not."""
        for word in command.words:
            assigned = ASSIGNMENT.match(raw(self.template, word))
            if assigned and assigned.group(1) in P.EXPANDED_LATER:
                return f"is on a line that sets {assigned.group(1)}, which bash expands again later"
        words = [w for w in command.words if not ASSIGNMENT.match(raw(self.template, w))]
        if not words or not words[0].plain:
            return None
        base = P.program(words[0].literal)
        while base in ("command", "builtin", "exec") and len(words) > 1 and words[1].plain:
            words = words[1:]
            base = P.program(words[0].literal)
        if base in P.STATE_CHANGING:
            return f"is on a line that runs {base}, which changes how bash reads or runs the commands after it"
        if base == "set" and not self.harmless_set(words[1:]):
            return "is on a line that runs set with options or arguments beyond -e, -u, -x, -v, -f, -C and -o " \
                   "pipefail…, which change how bash reads the words after it"
        return None

    def harmless_set(self, args: list[Word]) -> bool:
        expect_name = False
        for word in args:
            if not word.plain:
                return False
            text = word.literal
            if expect_name:
                if text not in P.SET_NAMES:
                    return False
                expect_name = False
                continue
            if len(text) < 2 or text[0] not in "-+" or text == "--":
                return False
            for letter in text[1:]:
                if letter == "o":
                    expect_name = True
                elif letter not in P.SET_LETTERS:
                    return False
        return not expect_name

    def pipeline(self, stages: list[tuple[Command, str | None]]) -> None:
        """A value piped into a program that may run its input (`echo {v} | sh`) is code there."""
        for command, base in stages:
            words = [w.literal for w in command.words if w.plain]
            if base is not None and (base.startswith("`") or P.runs_input(base, words)):
                for other, _ in stages:
                    if other is not command:
                        self.rest(other.words + other.redirects,
                                  f"is piped into {base}, which may run what it reads as code")


def scan(text: str) -> list[Slot]:
    """Every placeholder of a one-line command, in order, with its context and any refusal."""
    commands, slots, trouble = read_line(text)
    if trouble is POSITIONAL:
        for slot in slots:
            slot.refuse(f"is on a line with {trouble.what}")
        return slots
    if trouble is not None:
        for slot in slots:
            slot.refuse(f"is on a line with {trouble.what}, which this check does not read (values go only into "
                        "simple commands joined by ;, &&, || and |)")
        return slots
    Judge(text, commands, slots).run()
    return slots


def problem(slot: Slot) -> str:
    """What is wrong with a refused slot, for the error and for `/act.x --help`."""
    return f"{slot.text} {slot.refusal}"


def template_problems(template: str, names: set[str]) -> list[str]:
    """Why a CLI template is refused: the refused placeholders among `names` (its declared fields; `{...args}`
    always), one line each. A session variable's `{var}` is checked when it has a value, as the action runs."""
    found = [problem(s) for s in scan(template) if s.refusal is not None and (s.name == "...args" or s.name in names)]
    return list(dict.fromkeys(found))
