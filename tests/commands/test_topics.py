"""/topics and /sessions for a daemon's client: every topic it named and what each has open, String's layout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import SHELL_ENV_INFO, STRINGSH, info_setup, run_stringsh


class JsonDaemon:
    """`stringsh daemon --json` on pipes, asked one request at a time so the topics' order is the client's."""

    def __init__(self, ws: Path) -> None:
        self.proc = subprocess.Popen(
            [*STRINGSH, "daemon", "--json"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def ask(self, cmd: str, topic: str = "main") -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"cmd": cmd, "topic": topic}) + "\n")
        self.proc.stdin.flush()
        content: str = json.loads(self.proc.stdout.readline())["content"]
        return content

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def test_topics_lists_each_topic_with_what_it_has_open(ws: Path) -> None:
    (ws / "README.md").write_text("# Read me\n\n## Setup\n\nRun it.\n")
    (ws / "src").mkdir()
    daemon = JsonDaemon(ws)
    try:
        daemon.ask("/open README.md#setup")
        daemon.ask("/set a = 1", topic="docs")
        daemon.ask("cd src", topic="bash:dev")
        daemon.ask("/ls", topic="idle")
        assert daemon.ask("/topics", topic="docs") == (
            "re: /topics\nActive topics:\n\n"
            "  main                 tab     current: README.md#setup\n"
            "  docs                 tab     current: (none)\n"
            "  bash:dev             bash    cwd: ./src/\n"
            "  idle                 tab     current: (none)\n\n"
            "4 topics open."
        )
        assert daemon.ask("/sessions tab") == (
            "re: /sessions tab\n"
            "  main                 current: README.md#setup\n"
            "  docs                 current: (none)\n"
            "  idle                 current: (none)\n\n"
            "3 tab topics open."
        )
        assert daemon.ask("/topics bash", topic="idle") == (
            "re: /topics bash\n  bash:dev             cwd: ./src/\n\n1 bash topic open."
        )
        assert daemon.ask("/topics app") == "re: /topics app\n0 app topics open."
        assert daemon.ask("/topics windows") == (
            "re: /topics windows\nERROR(INVALID_PAYLOAD): Unknown topic type: windows\n"
            "Use one of: tab, app, bash, hub, or none for all."
        )
        assert daemon.ask("/topics tab bash") == (
            "re: /topics tab bash\nERROR(INVALID_PAYLOAD): Usage: /topics [tab | app | bash | hub]"
        )
    finally:
        daemon.close()


def test_one_shot_client_has_main_only(ws: Path) -> None:
    proc = run_stringsh(["-c", "/topics"], ws)
    assert proc.stdout.decode() == (
        "re: /topics\nActive topics:\n\n  main                 tab     current: (none)\n\n1 topic open.\n"
    )


def test_session_close_ends_a_topic_or_starts_this_one_afresh(ws: Path, dispatcher) -> None:
    (ws / "a.md").write_text("# A\n")
    dispatcher.execute("/open a.md", topic="docs")
    dispatcher.execute("/open a.md")
    dispatcher.execute('/set {x} = "1"')
    assert dispatcher.execute("/session close docs").text == "re: /session close docs\nSession closed: docs"
    listing = dispatcher.execute("/topics").text
    assert listing.endswith("\n\n  main                 tab     current: a.md\n\n1 topic open.")
    assert dispatcher.execute("/session close").text == "re: /session close\nSession closed: main"
    assert dispatcher.execute("/info").text.endswith(
        f"file:      (none open)\nhistory:   0 entries\nvars:      (none)\n{SHELL_ENV_INFO}\n{info_setup(ws)}")
    assert dispatcher.execute("/session close nope").text == (
        "re: /session close nope\nERROR(NOT_FOUND): No such topic: nope\n/topics lists this client's topics."
    )
    assert dispatcher.execute("/session open").text == (
        "re: /session open\nERROR(INVALID_PAYLOAD): Usage: /session close [topic]\n/topics lists this client's topics."
    )
