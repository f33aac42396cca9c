from __future__ import annotations

from stringsh.actions.fences import parse_actions
from stringsh.actions.model import Field
from stringsh.actions.schema import hint_line, render_action, render_actions, usage

DOC = """# Ops

```act.deploy
CLI ./deploy.sh --env {env}
  "Deploy the site"
  env, -e: string (required) "target environment"
  dry: boolean (optional) "print only"
  count: number = "3"
  limit: number (optional, max:50) "at most"
  weird: color (optional) "unknown types are dropped"
```

```act.status
get http://127.0.0.1:1/status/{id} -H "Authorization: Bearer $TOKEN" -H 'X-Two: b'
  description: Show service status
  id: string (required)
```

````act.create
POST http://127.0.0.1:1/items
  title: string (required) "Title"

  body:
    {
      "title": "{title}",

      "n": 1
    }
  tags: string (optional)
````

```act.create.response
Created {Response.body.id}
```

```act.orphan.response
never attached
```

```act.bad
FETCH http://nowhere
```

```act.deploy
CLI echo duplicate ignored
```

```python
```act.notreal
GET http://x
```
"""


def test_parse_actions_fields_and_templates() -> None:
    actions = parse_actions(DOC)
    assert [a.id for a in actions] == ["deploy", "status", "create"]
    deploy, status, create = actions
    assert deploy.method == "CLI" and deploy.uri == "./deploy.sh --env {env}"
    assert deploy.description == "Deploy the site"
    assert deploy.fields == [
        Field("env", "string", True, "target environment", None, "e"),
        Field("dry", "boolean", False, "print only"),
        Field("count", "number", False, "", "3"),
        Field("limit", "number", False, "at most"),
    ]
    assert status.method == "GET" and status.uri == "http://127.0.0.1:1/status/{id}"
    assert status.headers == [("Authorization", "Bearer $TOKEN"), ("X-Two", "b")]
    assert status.description == "Show service status"
    assert create.body == '{\n  "title": "{title}",\n\n  "n": 1\n}'
    assert [f.name for f in create.fields] == ["title", "tags"]
    assert create.response == "Created {Response.body.id}"
    assert deploy.response is None


def test_old_style_data_flag() -> None:
    (action,) = parse_actions('```act.x\nPOST http://h/p -d \'{"a": "{a}"}\'\n  a: string\n```\n')
    assert action.uri == "http://h/p" and action.body == '{"a": "{a}"}'


def test_schema_texts() -> None:
    deploy, status, _create = parse_actions(DOC)
    assert render_action(deploy) == (
        "/act.deploy\n   Deploy the site\n"
        "   -e, --env <string> (required) — target environment\n"
        "   --dry <boolean> (optional) — print only\n"
        "   --count <number> (optional, default 3)\n"
        "   --limit <number> (optional) — at most"
    )
    none = parse_actions("```act.ping\nGET http://h/ping\n```\n")
    assert render_actions(none) == "/act.ping\n   (no flags)"
    assert render_actions([]) == "No actions defined on this page."
    assert render_actions([status, none[0]]).count("\n\n") == 1
    assert usage(deploy).splitlines()[0] == "  --env <string> (required)"
    assert hint_line([deploy, status]) == "[actions] deploy, status  ·  /act --help (all)  ·  /act.<name> --help"
