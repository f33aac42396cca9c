"""run_action without the command layer: defaults with `$VAR`, payload routing, masking."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.actions.envstore import EnvStore
from stringsh.actions.envvars import EnvResolver
from stringsh.actions.fences import parse_actions
from stringsh.actions.run import ActionHost, run_action
from stringsh.errors import StringError
from stringsh.workspace import Workspace


def host(tmp_path: Path, variables: dict[str, str] | None = None) -> ActionHost:
    workspace = Workspace(tmp_path)  # CLI actions run through the engine; the process's end closes it
    return ActionHost(
        variables={} if variables is None else variables, env=EnvResolver(EnvStore(tmp_path)), cwd=tmp_path,
        cli_run=workspace.run_action,
    )


def test_default_with_a_persistent_variable(tmp_path: Path) -> None:
    (action,) = parse_actions('```act.a\nCLI printf "%s" {region}\n  region: string = "$STRINGSH_T_REGION"\n```\n')
    with pytest.raises(StringError) as info:
        run_action(action, "", host(tmp_path))
    assert info.value.message == (
        "Unresolved environment variable in field default:\n  $STRINGSH_T_REGION\n\n"
        'Set it:\n  /set $STRINGSH_T_REGION = "..."\nOr pass the field explicitly: /act.a --<field> <value>'
    )
    EnvStore(tmp_path).set("STRINGSH_T_REGION", "eu-west-9")
    outcome = run_action(action, "", host(tmp_path))
    assert (outcome.kind, outcome.content) == ("cli", "••••••")
    assert run_action(action, "--region us", host(tmp_path)).content == "us"


def test_cli_template_env_var_reaches_bash_as_environment(tmp_path: Path) -> None:
    EnvStore(tmp_path).set("STRINGSH_T_KEY", "k'; echo injected; '")
    (action,) = parse_actions("```act.k\nCLI printf '%s|' \"$STRINGSH_T_KEY\" {...args}\n  a: string\n```\n")
    outcome = run_action(action, "--a 'x y'", host(tmp_path))
    assert outcome.content == "••••••|--a|x y|"


def test_http_unresolved_header(tmp_path: Path) -> None:
    (action,) = parse_actions('```act.h\nGET http://127.0.0.1:9/ -H "X: $STRINGSH_T_NOPE"\n```\n')
    with pytest.raises(StringError) as info:
        run_action(action, "", host(tmp_path))
    assert info.value.message.startswith("Unresolved environment variable:\n  $STRINGSH_T_NOPE")


def test_http_query_and_path_fields(tmp_path: Path, server: str) -> None:
    (action,) = parse_actions(f"```act.q\nGET {server}/echo/{{id}}\n  id: string (required)\n  q: string\n```\n")
    outcome = run_action(action, "--id 'a/b' --q 'x&y'", host(tmp_path))
    assert outcome.kind == "doc" and outcome.uri == f"{server}/echo/a%2Fb"
    assert '"path": "/echo/a%2Fb"' in outcome.content and '"q": "x&y"' in outcome.content
