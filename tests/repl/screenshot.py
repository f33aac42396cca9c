"""Look at the REPL as a person would: run a short session in a pty and save each pyte screen as text.

    python tests/repl/screenshot.py [OUT_DIR]     (default /tmp/stringsh-repl-screens)

Not a test: a tool for reviewing the layout by eye. Writes one file per step plus `all.txt`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.repl.harness import Terminal

GUIDE = """---
title: Project guide
---
# Project guide

A short guide to **stringsh**: a chat-style shell over a folder.

## Install {#setup}

1. Clone the repository.
2. Run `pip install -e .` in it.

```bash
pip install -e '.[test]' && python -m pytest
```

## Commands

| command | does |
|---|---|
| `/open` | show a document |
| `/ls` | list a folder |

<!-- #todo -->
- [ ] write the tour
- [x] ship the REPL
<!-- /todo -->

> Tip: press Tab to complete paths and `#block` ids.
"""

STEPS = [
    ("listing", "/ls\r", "Listing ./"),
    ("document", "/open docs/guide.md\r", "Opened docs/guide.md"),
    ("block", "/open #todo\r", "Opened docs/guide.md#todo"),
    ("error", "/open docs/missing.md\r", "ERROR("),
    ("bash", "!cd docs && wc -l *\r", "exit: 0 | cwd:"),
    ("completion", "/open docs/guide.md#", "block of docs/guide.md"),
]


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/stringsh-repl-screens")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "project"
        (ws / "docs").mkdir(parents=True)
        (ws / "docs" / "guide.md").write_text(GUIDE)
        (ws / "docs" / "notes.txt").write_text("plain text\n")
        (ws / "src").mkdir()
        (ws / "README.md").write_text("# Project\n")
        (ws / ".env").write_text("SECRET=1\n")
        term = Terminal([], ws, {"STRINGSH_HISTORY": str(Path(tmp) / "history")}, size=(100, 48))
        screens = []
        try:
            term.wait_for("Ctrl-D quit")
            for name, keys, marker in STEPS:
                term.send(keys)
                term.wait_for(marker)
                term.settle()
                screen = term.text()
                (out / f"{name}.txt").write_text(screen + "\n")
                screens.append(f"===== {name}: {keys.strip()!r} =====\n{screen}\n")
                if keys.endswith("\r"):
                    term.wait_for(lambda s: s.splitlines()[-1].startswith(" main "))
            term.send("\x03\x04")
            term.wait_exit()
        finally:
            term.close()
    (out / "all.txt").write_text("\n".join(screens))
    print(f"screens saved in {out}/ (all.txt has every step)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
