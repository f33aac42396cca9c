"""`$VAR` in HTTP actions: a page of a workspace the user has not trusted uses only `/set`
values, never stringsh's environment; a trusted workspace's page uses what the shell's environment rule passes
(so a secret-looking name only when the user's own policy writes it out); the reply shows the URL as sent with each
variable named, never a mask. Through the real program against a real loopback server that records what arrived."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import run_stringsh

KEY = "env-canary-openai-99"
CHILD_ENV = {"OPENAI_API_KEY": KEY}


class Recorder(BaseHTTPRequestHandler):
    """Answers `ok` (404 under /missing) and keeps every request line's path in `server.seen`."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.seen.append(self.path)  # type: ignore[attr-defined]
        status = 404 if self.path.startswith("/missing") else 200
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    httpd.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def base(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def run(ws: Path, server: ThreadingHTTPServer, lines: str) -> str:
    """`stringsh run --keep-going` over a page whose actions send `$OPENAI_API_KEY`, the key in its environment."""
    (ws / "page.md").write_text(f"# P\n\n```act.check\nGET {base(server)}/collect?k=$OPENAI_API_KEY\n```\n\n"
                                f"```act.gone\nGET {base(server)}/missing?k=$OPENAI_API_KEY\n```\n")
    (ws.parent / "script.txt").write_text("/open page.md\n" + lines)
    out = run_stringsh(["run", "--keep-going", str(ws.parent / "script.txt")], ws, env=CHILD_ENV).stdout.decode()
    return out.split("\nre: ", 1)[1]  # after /open's reply


def unresolved(note: str) -> str:
    return ("re: /act.check\nERROR(INVALID_PAYLOAD): Unresolved environment variable:\n  $OPENAI_API_KEY\n\nSet it:\n"
            f'  /set $OPENAI_API_KEY = "..."\n$OPENAI_API_KEY: in stringsh\'s environment, not used: {note}\n')


UNTRUSTED = "a page of a workspace you have not trusted uses only /set values (or run 'stringsh trust')"
WITHHELD = ("the policy's [shell_environment] does not pass it (a name like *KEY*, *SECRET* or *TOKEN* only when "
            "your own policy's include writes it out)")


def user_policy(text: str) -> None:
    path = Path(os.environ["STRINGSH_CONFIG_DIR"], "policy.toml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("policy", ["", '[shell_environment]\ninclude = ["OPENAI_API_KEY"]\n'])
def test_an_untrusted_workspaces_page_uses_only_set_values_and_names_them(
        ws: Path, server: ThreadingHTTPServer, policy: str) -> None:
    user_policy(policy)  # even passed to the shell by the user's policy, the environment is not the page's
    out = run(ws, server, '/act.check\n/set $OPENAI_API_KEY = "from-set-1234"\n/act.gone\n/act.check\n')
    assert "re: " + out == (
        unresolved(UNTRUSTED) + "re: /set $OPENAI_API_KEY = ••••••\n$OPENAI_API_KEY = \"••••••\" (global)\n"
        f"re: /act.gone\nERROR(NOT_FOUND): HTTP 404 Not Found: GET {base(server)}/missing?k=$OPENAI_API_KEY\nok\n"
        f"re: /act.check\nOpened {base(server)}/collect?k=$OPENAI_API_KEY\n---\nok\n")
    assert server.seen == ["/missing?k=from-set-1234", "/collect?k=from-set-1234"]  # type: ignore[attr-defined]


def test_a_trusted_workspaces_page_follows_the_shells_rule(ws: Path, server: ThreadingHTTPServer) -> None:
    assert run_stringsh(["trust"], ws).returncode == 0
    assert "re: " + run(ws, server, "/act.check\n") == unresolved(WITHHELD)  # a *KEY* name: not by default
    assert server.seen == []  # type: ignore[attr-defined]
    user_policy('[shell_environment]\ninclude = ["OPENAI_API_KEY"]\n')
    assert "re: " + run(ws, server, "/act.check\n") == (
        f"re: /act.check\nOpened {base(server)}/collect?k=$OPENAI_API_KEY\n---\nok\n")
    assert server.seen == [f"/collect?k={KEY}"]  # type: ignore[attr-defined]
