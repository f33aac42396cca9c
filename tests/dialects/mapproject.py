"""A small package for the repository map's dialect tests: `core.py` is used by both other modules."""

from __future__ import annotations

from pathlib import Path

FILES = {
    "pkg/core.py": "class Engine:\n    def run(self, job):\n        return job()\n\n\n"
                   "def engine():\n    return Engine()\n",
    "pkg/jobs.py": "from pkg.core import Engine, engine\n\n\ndef nightly():\n    return engine().run(lambda: 1)\n",
    "pkg/cli.py": "from pkg.core import Engine\nfrom pkg.jobs import nightly\n\n\ndef main():\n"
                  "    return Engine().run(nightly)\n",
}


def make_project(root: Path) -> None:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".env").write_text("TOKEN=x\n")
