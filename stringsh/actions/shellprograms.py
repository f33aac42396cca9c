"""The documented lists behind the allowlist: programs that run their arguments as code, and wrappers followed.

A command is judged by its name as written (quotes removed, the folder dropped: `"bash"`, `/bin/bash` and `b\\ash`
are all `bash`; a version suffix too: `python3.12` is `python`). docs/security.md and `/help act` list these
sets; change them together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SHELLS = frozenset({
    "sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "lksh", "ash", "yash", "posh", "rbash",
    "fish", "csh", "tcsh", "rc", "es", "elvish", "nu", "xonsh", "hush", "osh", "ysh", "pwsh", "powershell", "cmd",
})
INTERPRETERS = frozenset({
    "python", "pypy", "perl", "ruby", "irb", "node", "nodejs", "deno", "bun", "php", "lua", "luajit", "Rscript",
    "R", "julia", "tclsh", "wish", "guile", "racket", "sbcl", "clisp", "ecl", "java", "jshell", "groovy", "scala",
    "kotlin", "erl", "escript", "elixir", "iex", "ghci", "runghc", "runhaskell", "swift", "osascript", "expect",
    "gdb", "lldb", "vim", "vi", "nvim", "ex", "emacs", "ed", "m4", "dc", "bc",
})
#: Programs that read a program (or SQL) from their arguments or whose arguments are a command they run.
PROGRAM_TEXT = frozenset({
    "awk", "gawk", "mawk", "nawk", "sed", "jq", "gojq", "jaq", "yq", "sqlite3", "psql", "mysql", "mariadb", "duckdb",
    "redis-cli", "mongo", "mongosh", "cqlsh",
})
RUNNERS = frozenset({
    "xargs", "parallel", "watch", "entr", "ssh", "rsh", "mosh", "su", "runuser", "sg", "pkexec", "script", "tmux",
    "screen", "unbuffer", "at", "batch", "crontab", "docker", "podman", "kubectl", "nerdctl", "nsenter", "unshare",
    "systemd-run", "firejail", "bwrap", "proot", "schroot", "fakeroot", "fakechroot", "strace", "ltrace",
    "valgrind", "perf", "catchsegv", "chrt", "prlimit", "numactl", "cgexec", "dbus-run-session", "xvfb-run",
    "make", "cmake", "npm", "npx", "yarn", "pnpm", "pip", "pipx", "uv", "uvx", "poetry", "cargo", "go", "dotnet",
    "zip", "xdg-open", "open", "direnv", "nix-shell",
})
#: Bash builtins that run their arguments as code.
CODE_BUILTINS = frozenset({"eval", "source", ".", "trap", "let", "fc", "bind", "alias", "complete", "compgen"})
#: Bash builtins a value may reach: they take their arguments as data.
SAFE_BUILTINS = frozenset({"echo", "printf", "cd", "pwd", "type", "help", "true", "false", ":"})
BUILTINS = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
    "compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export", "false",
    "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
    "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source",
    "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
})
#: Commands that change how bash reads or runs what follows them on the line: a line running one takes no values.
STATE_CHANGING = frozenset({"alias", "unalias", "shopt", "enable", "hash", "trap", "eval", "source", ".", "shift",
                            "getopts"})
#: Variables whose text bash expands again when it uses them (`PS4` under `set -x`, `BASH_ENV` in a child bash).
EXPANDED_LATER = frozenset({"PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV"})
#: `set` options that change nothing about how words are read.
SET_LETTERS = frozenset("euxvfC")
SET_NAMES = frozenset({"pipefail", "errexit", "nounset", "xtrace", "verbose", "noglob", "noclobber"})
#: Programs whose options can run a command: a value must follow a literal `--`.
DASHDASH = frozenset({"tar", "rsync", "scp", "sftp", "sort", "wget", "man", "hg"})
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

GIT_GLOBAL_WITH_ARG = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                                 "--super-prefix", "--exec-path"})
GIT_GLOBAL_FLAGS = frozenset({"-p", "-P", "--paginate", "--no-pager", "--bare", "--no-replace-objects",
                              "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                              "--no-optional-locks", "--no-advice"})
#: git subcommands whose options or arguments can run commands: a value must follow a literal `--`.
GIT_DASHDASH = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "archive", "grep", "remote"})
#: git subcommands a value may reach.
GIT_SAFE = frozenset({
    "add", "annotate", "apply", "blame", "branch", "cat-file", "check-attr", "check-ignore", "check-mailmap",
    "check-ref-format", "checkout", "cherry", "cherry-pick", "clean", "commit", "count-objects", "describe", "diff",
    "diff-files", "diff-index", "diff-tree", "for-each-ref", "format-patch", "fsck", "gc", "hash-object", "init",
    "log", "ls-files", "ls-tree", "merge-base", "mv", "name-rev", "notes", "range-diff", "reflog", "reset",
    "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-branch", "show-ref", "stash",
    "status", "switch", "symbolic-ref", "tag", "verify-commit", "verify-tag", "version", "whatchanged", "worktree",
})


@dataclass(frozen=True)
class Wrapper:
    """How a program that runs another command reads its own arguments (GNU getopt, stopping at the first
    operand): options without an argument, options with one, options that make it run a command line (refused),
    the long forms of each, how many operands come before the command (timeout's duration) and the words right
    after them that make it run a command line (`flock FILE -c`)."""

    flags: str = ""
    with_arg: str = ""
    code: str = ""
    long_flags: frozenset[str] = frozenset()
    long_with_arg: frozenset[str] = frozenset()
    long_code: frozenset[str] = frozenset()
    operands: int = 0
    number_flag: bool = False
    assignments: bool = False
    code_after_operands: frozenset[str] = frozenset()


WRAPPERS = {
    "env": Wrapper("i0v", "uCa", "S", frozenset({"ignore-environment", "null", "debug", "block-signal",
                                                 "default-signal", "ignore-signal", "list-signal-handling"}),
                   frozenset({"unset", "chdir", "argv0"}), frozenset({"split-string"}), assignments=True),
    "timeout": Wrapper("v", "sk", "", frozenset({"foreground", "preserve-status", "verbose"}),
                       frozenset({"signal", "kill-after"}), operands=1),
    "nice": Wrapper("", "n", "", long_with_arg=frozenset({"adjustment"}), number_flag=True),
    "nohup": Wrapper(),
    "setsid": Wrapper("cfw", long_flags=frozenset({"ctty", "fork", "wait"})),
    "stdbuf": Wrapper("", "ioe", long_with_arg=frozenset({"input", "output", "error"})),
    "ionice": Wrapper("t", "cn", long_flags=frozenset({"ignore"}), long_with_arg=frozenset({"class", "classdata"})),
    "taskset": Wrapper("ac", long_flags=frozenset({"all-tasks", "cpu-list"}), operands=1),
    "chroot": Wrapper(long_flags=frozenset({"skip-chdir"}), long_with_arg=frozenset({"userspec", "groups"}),
                      operands=1),
    "time": Wrapper("apqv", "fo", long_flags=frozenset({"append", "verbose", "portability", "quiet"}),
                    long_with_arg=frozenset({"format", "output"})),
    "command": Wrapper("pvV"),
    "builtin": Wrapper(),
    "exec": Wrapper("cl", "a"),
    "sudo": Wrapper("AbBEHknPS", "CDghprRtTUu", "si",
                    frozenset({"preserve-env", "non-interactive", "background", "askpass", "stdin", "set-home",
                               "bell"}),
                    frozenset({"user", "group", "chdir", "chroot", "prompt", "host", "close-from", "role", "type",
                               "command-timeout", "other-user"}),
                    frozenset({"shell", "login"})),
    "doas": Wrapper("n", "u", "s"),
    "flock": Wrapper("sxeunoF", "wE", "c", frozenset({"shared", "exclusive", "unlock", "nonblock", "close",
                                                      "no-fork", "verbose"}),
                     frozenset({"timeout", "conflict-exit-code", "wait"}), frozenset({"command"}), operands=1,
                     code_after_operands=frozenset({"-c", "--command"})),
    "busybox": Wrapper(),
    "toybox": Wrapper(),
}

VERSION = re.compile(r"(?:[-.]?\d[\d.]*)?(?:\.exe)?$")


def program(name: str) -> str:
    """`/usr/bin/python3.12` -> `python3.12`: the name a command is judged by (its folder dropped)."""
    return name.rsplit("/", 1)[-1]


def stem(base: str) -> str:
    """`python3.12` -> `python`, `lua5.4` -> `lua`, `m4` stays `m4` (checked as written first)."""
    cut = VERSION.sub("", base)
    return cut or base


def kind(base: str) -> str | None:
    """Which documented list a program's name is on, as the phrase a refusal uses; None when on none."""
    for name in (base, stem(base)):
        if name in SHELLS:
            return "a shell, which runs its arguments as code"
        if name in INTERPRETERS:
            return "an interpreter, which runs its arguments as code"
        if name in PROGRAM_TEXT:
            return "which reads a program from its arguments"
        if name in RUNNERS:
            return "which runs its arguments as a command"
        if name in CODE_BUILTINS:
            return "which runs its arguments as code"
    return None


def runs_input(base: str, words: list[str]) -> bool:
    """Whether a command may read the program it runs from its input: `| sh`, `| python3`, `| sed -f -`."""
    for name in (base, stem(base)):
        if name in SHELLS or name in INTERPRETERS or name in RUNNERS or name in CODE_BUILTINS:
            return True
        if name in PROGRAM_TEXT:
            reads_file = any(w in ("-f", "--file") or w.startswith(("--file=", "--from-file")) for w in words)
            return name not in ("awk", "gawk", "mawk", "nawk", "sed", "jq", "gojq", "jaq", "yq") or reads_file
    return False
