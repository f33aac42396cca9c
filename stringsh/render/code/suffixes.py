"""Which paths are source code, by suffix. `/open` asks this of every text file, so it lives apart from the
language rules (languages.py, whose import builds every rule): a file that is not code costs a dict lookup."""

from __future__ import annotations

LANGUAGE_BY_SUFFIX = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".sh": "bash",
    ".bash": "bash",
}


def language_of(path: str, text: str | None = None) -> str | None:
    """The language of a path by its suffix (case-insensitive), None for a file that is not code here. A `.h`
    is C or C++ by its `text` (headers.py) when it is given, else C: pass the text wherever a file is indexed."""
    dot = path.rfind(".")
    if dot <= path.rfind("/") + 1:  # no suffix, or a dot file such as `.bashrc`
        return None
    suffix = path[dot:].lower()
    if suffix == ".h" and text is not None:
        from stringsh.render.code.headers import header_language

        return header_language(text)
    return LANGUAGE_BY_SUFFIX.get(suffix)
