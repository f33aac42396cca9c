"""Each case of the report's finding 1, through the real program with the sandbox off (so a value that became code
would run with the user's rights): the page is read, `/act.x --help` says which placeholder and why, running it is
refused and the canary never appears; the templates a page may keep writing still run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

RULE = ("A value may only be one argument of a simple command whose name is written on the page and that does not "
        "run its arguments as code (see /help act).")

#: (template, its field, why it is refused) — every example of finding 1.
FINDING = [
    ("RANDOM={seed}; echo rnd-$RANDOM", "seed", "stands in an assignment to RANDOM"),
    ("PS4={v}; set -x; echo traced", "v", "stands in an assignment to PS4"),
    ("OPTIND={v}; echo opt", "v", "stands in an assignment to OPTIND"),
    ("HISTCMD={v}; echo hist", "v", "stands in an assignment to HISTCMD"),
    ('bash -o pipefail -c "echo {v} | cat"', "v", "is an argument of bash, a shell, which runs its arguments as code"),
    ('"bash" -c {v}', "v", "is an argument of bash, a shell, which runs its arguments as code"),
    ("flock lockfile -c {v}", "v", "is an argument of flock -c, which runs its argument as a command line"),
]


def page(template: str, name: str) -> str:
    return f"# Ops\n\n```act.x\nCLI {template}\n  {name}: string\n```\n"


def run(ws: Path, script: str) -> list[str]:
    proc = run_stringsh(["--no-sandbox", "run", "--keep-going", "-"], ws, stdin="/open ops.md\n" + script)
    return split_replies(proc.stdout.decode())[1:]


@pytest.mark.parametrize(("template", "name", "why"), FINDING, ids=[case[0] for case in FINDING])
def test_each_case_of_the_finding_is_refused_and_runs_nothing(ws: Path, template: str, name: str, why: str) -> None:
    (ws / "ops.md").write_text(page(template, name))
    (ws / "value.txt").write_text("a[$(touch pwn2)]")
    replies = run(ws, f"/act.x --help\n/act.x 'a[$(touch pwn)]'\n/act.x --{name}-file value.txt\n/act.x 'touch pwn'\n")
    refused = f"{{{name}}} {why}"
    error = f"ERROR(INVALID_PAYLOAD): /act.x: {refused}; nothing ran.\n{RULE}"
    assert replies == [
        f"re: /act.x --help\nAction: x\n---\n/act.x\n   --{name} <string> (optional)\n   refused: {refused}\n   {RULE}",
        f"re: /act.x 'a[$(touch pwn)]'\n{error}",
        f"re: /act.x --{name}-file value.txt\n{error}",
        f"re: /act.x 'touch pwn'\n{error}",
    ]
    assert sorted(p.name for p in ws.iterdir() if not p.name.startswith(".")) == ["ops.md", "value.txt"]


SAFE = """# Ops

```act.say
CLI echo {v}
  v: string
```

```act.log
CLI git log -n {n} --format=%s
  n: string
```

```act.find
CLI grep -r {pattern} .
  pattern: string
```
"""


@pytest.mark.needs("git")
def test_the_templates_a_page_keeps_writing_still_run_with_hostile_values(ws: Path) -> None:
    (ws / "ops.md").write_text(SAFE)
    (ws / "notes.txt").write_text("a[$(touch pwn)] is here\n")
    (ws / "v.txt").write_text("a[$(touch pwn)]")
    (ws / "n.txt").write_text("--x=$(touch pwn)")
    for git in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m",
                                 "first"]):
        subprocess.run(["git", *git], cwd=ws, check=True)
    replies = run(ws, "/act.say --v-file v.txt\n/act.say -- -c\n/act.log --n-file n.txt\n"
                      "/act.find --pattern '$(touch pwn)'\n")
    assert replies[0] == f"re: /act.say --v-file v.txt\nexit: 0 | cwd: {ws}\n---\na[$(touch pwn)]"
    assert replies[1] == f"re: /act.say -- -c\nexit: 0 | cwd: {ws}\n---\n-c"
    assert replies[2] == f"re: /act.log --n-file n.txt\nexit: 0 | cwd: {ws}\n---\n(no output)"  # git reads it as 0
    head, found = replies[3].split("\n---\n")
    assert head == f"re: /act.find --pattern '$(touch pwn)'\nexit: 0 | cwd: {ws}"
    assert sorted(found.splitlines()) == [  # grep -r's order is the folder's
        "./n.txt:--x=$(touch pwn)", "./notes.txt:a[$(touch pwn)] is here", "./v.txt:a[$(touch pwn)]"]
    assert not (ws / "pwn").exists()
