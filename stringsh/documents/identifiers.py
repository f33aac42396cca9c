"""Whether a text is a name a language accepts for a definition: what `/rename` checks NEW against (a keyword,
punctuation or a space would change the program's meaning, or break its parse)."""

from __future__ import annotations

import keyword
import re

_C = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool"}
_JS = {"break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else",
       "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new",
       "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with",
       "yield", "let", "static", "implements", "interface", "package", "private", "protected", "public", "await"}
KEYWORDS: dict[str, set[str]] = {
    "python": set(keyword.kwlist) | {"None", "True", "False"},
    "javascript": _JS, "typescript": _JS | {"type", "namespace", "declare", "abstract", "readonly"},
    "go": {"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for", "func",
           "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select", "struct",
           "switch", "type", "var"},
    "rust": {"as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false",
             "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
             "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while"},
    "java": {"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
             "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
             "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
             "protected", "public", "return", "short", "static", "super", "switch", "synchronized", "this", "throw",
             "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null", "var", "record"},
    "c": _C,
    "cpp": _C | {"bool", "catch", "class", "delete", "explicit", "friend", "mutable", "namespace", "new", "operator",
                 "private", "protected", "public", "template", "this", "throw", "try", "typename", "using", "virtual",
                 "true", "false", "nullptr"},
    "ruby": {"alias", "and", "begin", "break", "case", "class", "def", "defined?", "do", "else", "elsif", "end",
             "ensure", "false", "for", "if", "in", "module", "next", "nil", "not", "or", "redo", "rescue", "retry",
             "return", "self", "super", "then", "true", "undef", "unless", "until", "when", "while", "yield"},
    "bash": {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
             "in", "function", "time"},
}
KEYWORDS["tsx"] = KEYWORDS["typescript"]
#: A name's shape where it is not Python's `str.isidentifier` (JavaScript allows `$`, Ruby's methods end in ?, !).
SHAPES = {
    "javascript": re.compile(r"[^\W\d][\w$]*|\$[\w$]*"), "typescript": re.compile(r"[^\W\d][\w$]*|\$[\w$]*"),
    "tsx": re.compile(r"[^\W\d][\w$]*|\$[\w$]*"), "ruby": re.compile(r"[^\W\d]\w*[?!=]?"),
    "bash": re.compile(r"[A-Za-z_][A-Za-z0-9_]*"), "c": re.compile(r"[A-Za-z_][A-Za-z0-9_]*"),
    "cpp": re.compile(r"[A-Za-z_][A-Za-z0-9_]*"),
}


def is_identifier(language: str, text: str) -> bool:
    """Whether `text` is a name (not a keyword) in `language`."""
    shape = SHAPES.get(language)
    fits = shape.fullmatch(text) is not None if shape is not None else text.isidentifier()
    return fits and text not in KEYWORDS.get(language, set())
