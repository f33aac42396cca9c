"""A symbol edit moves only the lines that carry code at the symbol's level: a line that starts inside a string,
template literal, raw string, heredoc, text block or block comment, or holds a preprocessor directive, stays
exactly as the caller sent it (symbolsplice.py, on render/code/literals.py). Golden files in each language's idioms
(tests/render/literal_cases.py), edited by the splice itself; the command path is tests/commands/
test_edit_symbol_literals.py."""

from __future__ import annotations

import pytest

from stringsh.documents.symbolsplice import checked_insert, checked_replace
from stringsh.render.code import budget
from stringsh.render.code.index import build_symbols
from stringsh.render.code.languages import language_of
from stringsh.render.code.literals import verbatim_rows
from tests.render.literal_cases import CASES, CLI_PY, INSERTS, ISSUE, Case


def _kept(text: str, language: str) -> list[str]:
    """The lines of `text` a splice leaves as sent."""
    lines = text.split("\n")
    return [lines[row] for row in sorted(verbatim_rows(text, language, 0, len(lines)))]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_a_replaced_symbol_keeps_its_strings_as_sent(case: Case) -> None:
    language = language_of(case.path)
    index = build_symbols(case.before, language)
    symbol = index.resolve(case.target)
    assert symbol is not None
    spliced = checked_replace(case.before, index, symbol, case.body, case.target, False, "")
    assert spliced.text.encode() == case.after.encode()
    assert not spliced.index.errors and spliced.index.resolve(case.target) is not None
    again = checked_replace(case.before, index, symbol, case.body, case.target, True, "")  # --force reads it alike
    assert again.text == case.after


@pytest.mark.parametrize("case", INSERTS, ids=lambda case: case.name)
def test_an_inserted_definition_keeps_its_strings_as_sent(case: Case) -> None:
    index = build_symbols(case.before, language_of(case.path))
    symbol = index.resolve(case.target)
    assert symbol is not None
    spliced = checked_insert(case.before, index, symbol, case.body, case.where == "--after", case.target, False, "")
    assert spliced.text.encode() == case.after.encode()
    assert not spliced.index.errors


def test_the_issue_example_in_a_crlf_file_keeps_the_strings_value() -> None:
    text = ISSUE.replace("\n", "\r\n")
    index = build_symbols(text, "python")
    symbol = index.resolve("K.usage")
    assert symbol is not None
    body = 'def usage(self):\n    return """\nUsage: k (v2)\n"""\n'
    assert checked_replace(text, index, symbol, body, "usage", False, "").text == (
        'class K:\r\n    def usage(self):\r\n        return """\r\nUsage: k (v2)\r\n"""\r\n')


def test_a_block_comment_sent_dedented_stays_as_sent_and_line_comments_move() -> None:
    """The rule is the same for comments: their continuation lines are the caller's bytes (send the body as the
    view shows it to keep them aligned); a line comment starts at the code's level and moves with it."""
    text = "struct Tty {\n    void raw() {\n        enable();\n    }\n};\n"
    index = build_symbols(text, "cpp")
    symbol = index.resolve("raw")
    assert symbol is not None
    body = ("void raw() {\n    /* Windows needs the console mode first:\n       SetConsoleMode(h, mode); */\n"
            "    // then the termios flags\n    enable();\n}\n")
    assert checked_replace(text, index, symbol, body, "raw", False, "").text == (
        "struct Tty {\n    void raw() {\n        /* Windows needs the console mode first:\n"
        "       SetConsoleMode(h, mode); */\n        // then the termios flags\n        enable();\n    }\n};\n")


def test_a_typescript_method_keeps_its_template_literal() -> None:
    text = ("export class Query {\n  constructor(private table: string) {}\n\n  sql(): string {\n"
            "    return `SELECT *\nFROM ${this.table}`;\n  }\n}\n")
    index = build_symbols(text, "typescript")
    symbol = index.resolve("sql")
    assert symbol is not None
    body = "sql(limit = 10): string {\n  return `SELECT *\nFROM ${this.table}\nLIMIT ${limit}`;\n}\n"
    assert checked_replace(text, index, symbol, body, "sql", False, "").text == text.replace(
        "  sql(): string {\n    return `SELECT *\nFROM ${this.table}`;\n  }",
        "  sql(limit = 10): string {\n    return `SELECT *\nFROM ${this.table}\nLIMIT ${limit}`;\n  }")


def test_a_body_that_moves_no_line_costs_no_extra_parse() -> None:
    """The parse that finds strings is asked only when re-indenting would change a line."""
    text = CLI_PY
    index = build_symbols(text, "python")
    symbol = index.resolve("run")
    assert symbol is not None
    shown = "    def run(self, argv):\n        if not argv:\n            return 2\n        return 0\n"
    parses = budget.WORK["parses"]
    assert checked_replace(text, index, symbol, shown, "run", False, "").text == text.replace(
        "            sys.stderr.write(self.usage())\n", "")
    assert budget.WORK["parses"] == parses + 1  # the check of the new text only
    parses = budget.WORK["parses"]
    assert checked_replace(text, index, symbol, shown.replace("\n    ", "\n").lstrip(), "run", False, "").text == (
        text.replace("            sys.stderr.write(self.usage())\n", ""))
    assert budget.WORK["parses"] > parses + 1


def test_preprocessor_directives_and_their_continuations_are_kept_and_code_between_them_is_not() -> None:
    text = ("void f(void) {\n    #pragma omp parallel\n#define TWICE(a) \\\n    ((a) * 2)\n#if defined(A) && \\\n"
            "    defined(B)\n    g();\n#elif C\n#endif\n}\n")
    assert _kept(text, "c") == ["    #pragma omp parallel", "#define TWICE(a) \\", "    ((a) * 2)",
                                "#if defined(A) && \\", "    defined(B)", "#elif C", "#endif"]
    assert _kept(text, "cpp") == _kept(text, "c")


def test_the_lines_between_adjacent_python_strings_are_code_and_an_f_strings_are_not() -> None:
    text = 'def f(x):\n    s = ("a"\n         "b")\n    return f"""\n{x +\n 1}\n"""\n'
    assert _kept(text, "python") == ["{x +", " 1}", '"""']


def test_ruby_block_comments_and_indented_heredocs_are_kept() -> None:
    text = "def f\n  <<-SQL\n    SELECT 1\n  SQL\nend\n=begin\nnotes\n=end\n"
    assert _kept(text, "ruby") == ["    SELECT 1", "  SQL", "=begin", "notes", "=end"]


def test_a_bash_heredoc_with_tabs_is_kept_whole() -> None:
    text = "usage() {\n  cat <<-EOF\n\tUsage: x\n\tEOF\n  echo \"a\nb\"\n}\n"
    assert _kept(text, "bash") == ["\tUsage: x", "\tEOF", 'b"']


def test_only_the_rows_asked_are_answered() -> None:
    text = 'A = """\nx\n"""\n\n\ndef f():\n    return """\ny\n"""\n'
    assert verbatim_rows(text, "python", 5, 9) == frozenset({7, 8})
    assert verbatim_rows(text, "python", 0, 2) == frozenset({1})
    assert verbatim_rows(text, "python", 3, 3) == frozenset()


def test_a_typescript_template_literal_type_is_kept() -> None:
    text = "type Route = `/api/${string}\n/v2`;\nclass A {\n  m(): void {}\n}\n"
    assert _kept(text, "typescript") == ["/v2`;"]
