from __future__ import annotations

import base64

from stringsh.actions.template import MISSING, HttpResponse, run_template, walk

BODY = {
    "city": "Oslo",
    "temp": 3.5,
    "ok": True,
    "none": None,
    "items": [{"name": "a", "tags": ["x"]}, {"name": "b", "tags": []}],
    "img": {"b64": base64.b64encode(b"\x89PNG\x00\xff").decode()},
}


def run(template: str, body: object = BODY, payload: dict[str, str] | None = None, variables=None, files=None):
    variables = {} if variables is None else variables
    files = {} if files is None else files
    import json

    text = json.dumps(body) if not isinstance(body, str) else body
    parsed = body if not isinstance(body, str) else MISSING
    response = HttpResponse(200, text, parsed)
    return run_template(template, response, payload or {}, variables, files.__setitem__)


def test_walk() -> None:
    assert walk(BODY, "items[1].name") == "b"
    assert walk(BODY, "$.items[0].tags[0]") == "x"
    assert walk(BODY, "items[5]") is MISSING and walk(BODY, "city.x") is MISSING


def test_assignments_lines_and_substitution_order() -> None:
    variables = {"unit": "C", "city": "old"}
    out = run(
        "{city} = {Response.body.city}\n{t} = {Response.temp_missing}\n"
        "## {city}: {Response.body.temp}{unit} ok={Response.body.ok} n={Response.body.none}\n"
        "status {Response.status} for {who} {unknown}\n\n\n",
        payload={"who": "ana", "unit": "F"},
        variables=variables,
    )
    assert out == "## Oslo: 3.5F ok=true n=\nstatus 200 for ana {unknown}"
    assert variables["city"] == "Oslo" and variables["t"] == ""


def test_for_loop_and_objects() -> None:
    out = run("Items:\nfor: item in Response.body.items\n- {item.name} {item.tags}\nend:\nTotal done")
    assert out == 'Items:\n- a ["x"]\n- b []\nTotal done'
    assert run("for: t in body.items[0].tags\n* {t}\nend:") == "* x"
    assert run("for: x in body.nothing\n{x.y}\nend:\nafter") == "after"


def test_non_json_body_is_text() -> None:
    assert run("```\n{Response.body}\n```", body="raw text\nline") == "```\nraw text\nline\n```"


def test_save_decode_to_writes_bytes() -> None:
    files: dict[str, bytes] = {}
    template = "save: img.b64\ndecode: base64\nto: out/{name}.png\nSaved {name}.png"
    out = run(template, payload={"name": "pic"}, files=files)
    assert out == "Saved pic.png"
    assert files == {"out/pic.png": b"\x89PNG\x00\xff"}


def test_save_problems_become_lines() -> None:
    files: dict[str, bytes] = {}
    template = "save: img.nope\ndecode: base64\nto: x\nsave: temp\ndecode: base64\ndecode: rot13\nto: plain.txt"
    out = run(template, files=files)
    assert out.splitlines() == [
        "save: path returned no value: img.nope",
        "decode: no current buffer (was save: skipped or missing?)",
        "to: no current buffer (was save: skipped or missing?)",
        "decode: base64 failed: Only base64 data is allowed",
        'decode: unknown encoding "rot13" (supported: base64, none)',
    ]
    assert files == {"plain.txt": b"3.5"}


def test_write_failure_is_a_line() -> None:
    def refuse(path: str, data: bytes) -> None:
        from stringsh.errors import StringError

        raise StringError("INVALID_PATH", f"Path escapes the workspace: {path}")

    response = HttpResponse(200, '{"a": "b"}', {"a": "b"})
    out = run_template("save: a\nto: ../x", response, {}, {}, refuse)
    assert out == "to: write failed: Path escapes the workspace: ../x"
