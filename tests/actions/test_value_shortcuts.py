"""Value shortcuts (`{@name} = …` in response templates, `@name-N` in flags and /open) and `{...args}`, as
String has them, through the real program against a loopback server."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

PAGE = """# Repos

```act.list
GET BASE/items
```

```act.list.response
for: item in Response.body.items
{@repo} = ({item.name}, {item.size})
- {@repo} {item.name}
end:
{@doc} = notes.md
Latest: {@repo}, notes: {@doc}, unknown: {@nope}
```

```act.show
GET BASE/echo/{repo[0]}/{repo[1]}
  repo: string (required)
```

```act.show.response
{Response.body.path}
```

```act.args
GET BASE/echo?x={...args}
  name: string
  size: number
```

```act.args.response
{Response.body.query}
```

```act.q
GET BASE/echo?fixed=1
  q: string
```

```act.q.response
{Response.body.query}
```

```act.cli
CLI printf '%s|' {...args}
  name: string
  size: number
```
"""


def run(ws: Path, server: str, script: str) -> list[str]:
    (ws / "page.md").write_text(PAGE.replace("BASE", server))
    (ws / "notes.md").write_text("# Notes\n")
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin="/open page.md\n" + script)
    return [reply.replace(server, "BASE") for reply in split_replies(proc.stdout.decode())[1:]]


def test_template_registers_value_shortcuts_that_flags_and_open_resolve(ws: Path, server: str) -> None:
    replies = run(
        ws, server,
        "/act.list\n/act.show @repo-2\n/act.show --repo @doc\n/open @repo-1\n/open @doc\n/back\n/act.list\n"
        "/act.show @repo-1\n/close\n/open page.md\n/act.show @repo-1\n",
    )
    listing = "re: /act.list\n- @repo-1 alpha\n- @repo-2 beta\nLatest: @repo-2, notes: @doc, unknown: {@nope}"
    assert replies[:6] == [
        listing,
        "re: /act.show @repo-2\n/echo/beta/2",
        "re: /act.show --repo @doc\n/echo/notes.md/",
        "re: /open @repo-1\nERROR(INVALID_TARGET): @repo-1 holds 2 values (alpha, 1), not one place to open.\n"
        "Pass it to an action instead: /act.<name> --<flag> @repo-1",
        "re: /open @doc\nOpened notes.md\n---\n# Notes",
        "re: /back\nBack to page.md\n---\n[actions] list, show, args, q, cli  ·  /act --help (all)  ·  "
        "/act.<name> --help\n\n# Repos",
    ]
    assert replies[6] == listing  # run again: the same slugs, renumbered from 1
    assert replies[7] == "re: /act.show @repo-1\n/echo/alpha/1"
    assert replies[10] == (
        "re: /act.show @repo-1\nERROR(NOT_FOUND): Unknown shortcut: @repo-1\n(no shortcuts on this page)"
    )


def test_spread_args_and_a_query_the_url_already_has(ws: Path, server: str) -> None:
    replies = run(ws, server, "/act.args --name alpha --size 2\n/act.q --q x\n/act.cli --name 'a b' --size 2\n")
    assert replies[0] == 're: /act.args --name alpha --size 2\n{"x":"--name alpha --size 2"}'
    assert replies[1] == 're: /act.q --q x\n{"fixed":"1","q":"x"}'
    assert replies[2] == f"re: /act.cli --name 'a b' --size 2\nexit: 0 | cwd: {ws}\n---\n--name|a b|--size|2|"
