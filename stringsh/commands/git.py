"""/git: structured git (the JSON tools' `git`) — status, diff, log, commit, checkout, branch, push — over the engine's
hardened runner (stringsh/workspace/git/). Replies are text like every command's, with git's output redacted."""

from __future__ import annotations

from collections.abc import Callable

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.targets import split_dashes
from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.protocol.response import Result
from stringsh.workspace import Workspace, clean_text

SUBCOMMANDS = ("status", "diff", "log", "commit", "checkout", "branch", "push")
USAGE = {
    "status": "/git status",
    "diff": "/git diff [--staged] [path]",
    "log": "/git log [-n N]",
    "commit": "/git commit -m MSG [file…]",
    "checkout": "/git checkout [-b] BRANCH",
    "branch": "/git branch",
    "push": "/git push [remote] [branch]",
}


def line(text: str) -> str:
    """A name, path or subject as one printable line: no escape sequence reaches a terminal, no line break
    splits a list (`\\n`); a repository chooses these bytes."""
    return clean_text(text.replace("\n", "\\n").replace("\r", "\\r"))


def usage(sub: str, why: str) -> StringError:
    return StringError("INVALID_PAYLOAD", f"{why}. Usage: {USAGE[sub]}", "/help git shows every subcommand.")


def no_options(sub: str, words: list[str]) -> None:
    """A word starting with `-` is never passed on: git would read it as an option (`--upload-pack=…`)."""
    for word in words:
        if word.startswith("-"):
            raise usage(sub, f"Unknown option for /git {sub}: {word}")


@handler("git")
def git(ctx: Context) -> Result:
    if not ctx.args:
        raise StringError("INVALID_PAYLOAD", f"Usage: /git SUBCOMMAND; one of: {', '.join(SUBCOMMANDS)}",
                          "/help git shows each; any other git command: !git …")
    sub, rest = ctx.args[0], list(ctx.args[1:])
    run = HANDLERS.get(sub)
    if run is None:
        raise StringError("INVALID_PAYLOAD", f"Unknown /git subcommand: {sub}",
                          f"One of: {', '.join(SUBCOMMANDS)} (/help git); any other git command: !git …")
    return run(ctx.dispatcher.workspace, ctx.session.topic, rest)  # git's words are masked with the reply


def _status(ws: Workspace, topic: str, args: list[str]) -> Result:
    if args:
        raise usage("status", "/git status takes no arguments")
    state = ws.git.status(topic)
    if state.branch is None:
        where = f"HEAD detached at {state.head}"
    else:
        where = f"On branch {state.branch}" + ("" if state.head else ", no commits yet")
    if state.upstream:
        where += f" ({state.upstream}: ahead {state.ahead}, behind {state.behind})"
    sections = [
        _section("staged", [f"{c.kind}: {shown_name(c.path)}" for c in state.staged]),
        _section("unstaged", [f"{c.kind}: {shown_name(c.path)}" for c in state.unstaged]),
        _section("untracked", [f"{shown_name(path[:-1])}/" if path.endswith("/") else shown_name(path)
                               for path in state.untracked]),  # a folder as /ls shows it: `"d\\xe9r"/`
    ]
    if state.hidden:
        sections.append(f"({_plural(state.hidden, 'secret path')} not shown)")
    return Result(where, "\n".join(sections))


def _section(title: str, rows: list[str]) -> str:
    return f"{title}: (none)" if not rows else "\n".join([f"{title}:", *(f"  {row}" for row in rows)])


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _diff(ws: Workspace, topic: str, args: list[str]) -> Result:
    words, literal = split_dashes(args)
    staged = False
    paths = []
    for word in words:
        if word in ("--staged", "--cached"):
            staged = True
        elif word.startswith("-"):
            raise usage("diff", f"Unknown option for /git diff: {word}")
        else:
            paths.append(word)
    paths += literal
    if len(paths) > 1:
        raise usage("diff", "/git diff takes at most one path")
    result = ws.git.diff(staged=staged, path=paths[0] if paths else None, topic=topic)
    kind = "Staged" if staged else "Unstaged"
    hidden = f"({_plural(result.hidden, 'secret file')} left out)" if result.hidden else None
    if not result.files:
        return Result(f"No {kind.lower()} changes" + (f" {hidden}" if hidden else ""))
    text = ws.redact_lines(clean_text(result.text.rstrip("\n")))  # over the output cap the engine cut it
    if hidden:
        text += f"\n{hidden}"
    return Result(f"{kind} changes: {_plural(len(result.files), 'file')}", text)


def _log(ws: Workspace, topic: str, args: list[str]) -> Result:
    count = ws.git.LOG_DEFAULT
    if args:
        value = args[1] if args[0] == "-n" and len(args) == 2 else args[0][2:] if len(args) == 1 and \
            args[0].startswith("-n") else None
        if value is None or not value.isdigit():
            raise usage("log", "Give the number of commits as -n N")
        count = int(value)
    entries = ws.git.log(count, topic)
    if not entries:
        return Result("No commits yet")
    rows = [f"{e.commit} {e.date} {line(e.author)}: {line(e.subject)}" for e in entries]
    return Result(f"Last {_plural(len(entries), 'commit')}, newest first", "\n".join(rows))


def _commit(ws: Workspace, topic: str, args: list[str]) -> Result:
    words, literal = split_dashes(args)
    message: str | None = None
    files: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-m":
            if i + 1 == len(words):
                break  # no message after it
            message = words[i + 1]
            i += 2
            continue
        if word.startswith("-"):
            raise usage("commit", f"Unknown option for /git commit: {word}")
        files.append(word)
        i += 1
    if message is None:
        raise usage("commit", "A commit needs a message (-m MSG); no editor is opened")
    done = ws.git.commit(message, [*files, *literal], topic)
    on = f" on {done.branch}" if done.branch else ""
    return Result(f"Committed {done.commit}{on}: {done.summary}")


def _checkout(ws: Workspace, topic: str, args: list[str]) -> Result:
    create = bool(args) and args[0] == "-b"
    names = args[1:] if create else args
    if len(names) != 1:
        raise usage("checkout", "Name one branch")
    done = ws.git.checkout(names[0], create=create, topic=topic)
    return Result(f"Switched to a new branch {done.branch}" if done.created else f"Switched to branch {done.branch}")


def _branch(ws: Workspace, topic: str, args: list[str]) -> Result:
    if args:
        raise usage("branch", "/git branch takes no arguments (/git checkout -b NAME makes a branch)")
    rows = ws.git.branches(topic)
    if not rows:
        return Result("No branches yet (the first commit makes one)")
    current = next((b.name for b in rows if b.current), None)
    lines = [f"{'*' if b.current else ' '} {line(b.name)} {b.commit}" + (f" [{line(b.upstream)}]" if b.upstream else "")
             for b in rows]
    head = f"; current: {current}" if current else "; HEAD is detached"
    return Result(f"{_plural(len(rows), 'branch').replace('branchs', 'branches')}{head}", "\n".join(lines))


def _push(ws: Workspace, topic: str, args: list[str]) -> Result:
    no_options("push", args)
    if len(args) > 2:
        raise usage("push", "/git push takes a remote and a branch at most")
    done = ws.git.push(args[0] if args else None, args[1] if len(args) > 1 else None, topic)
    return Result(f"Pushed {done.branch} to {done.remote}: {done.summary}")


HANDLERS: dict[str, Callable[[Workspace, str, list[str]], Result]] = {
    "status": _status, "diff": _diff, "log": _log, "commit": _commit, "checkout": _checkout,
    "branch": _branch, "push": _push,
}
