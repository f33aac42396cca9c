"""References by scope (render/code/occurrences.py): every identifier's role and containing symbol, read from the
syntax tree of small sources in each language's own idioms; exact lists, so a role that moves fails."""

from __future__ import annotations

import pytest

from stringsh.render.code.index import build_symbols
from stringsh.render.code.occurrences import Occurrence, occurrences

#: language -> (source, the name asked for, [(line, column, role, container, via)])
CASES = {
    "python": (
        'import json\n'
        'from .util import parse, other as oth\n'
        'import pkg.util as u\n'
        '\n'
        'class Parser:\n'
        '    def parse(self, text):\n'
        '        return self.helper(text) + json.parse(text)\n'
        '\n'
        '    def helper(self, parse):\n'
        '        x = parse + 1\n'
        '        return [parse for parse in x]\n'
        '\n'
        'def run(data):\n'
        '    parse = data.strip()\n'
        '    return parse\n'
        '\n'
        'def main():\n'
        '    p = Parser()\n'
        '    p.parse(parse("x"))\n'
        '    u.parse(1)\n'
        '    global parse\n'
        , "parse", [
            (2, 19, 'import', '', '.util'),
            (6, 9, 'definition', 'Parser', ''),
            (7, 41, 'qualified', 'Parser.parse', 'json'),
            (9, 22, 'parameter', 'Parser.helper', ''),
            (10, 13, 'parameter', 'Parser.helper', ''),
            (11, 17, 'local', 'Parser.helper', ''),
            (11, 27, 'local', 'Parser.helper', ''),
            (14, 5, 'local', 'run', ''),
            (15, 12, 'local', 'run', ''),
            (19, 7, 'member', 'main', 'p'),
            (19, 13, 'use', 'main', ''),
            (20, 7, 'qualified', 'main', 'u'),
            (21, 12, 'use', 'main', ''),
        ]),
    "javascript": (
        'const util = require("./util");\n'
        'const { parse, fmt: f } = require("./parse");\n'
        'import { parse as p2 } from "./m";\n'
        'class A {\n'
        '  parse(x) { return this.parse(x) + util.parse(x); }\n'
        '}\n'
        'function run(parse) { return parse(1); }\n'
        'const go = () => { let parse = 2; return parse; };\n'
        'module.exports = { parse };\n'
        , "parse", [
            (2, 9, 'import', '', './parse'),
            (3, 10, 'import', '', './m'),
            (5, 3, 'definition', 'A', ''),
            (5, 26, 'member', 'A.parse', 'this'),
            (5, 42, 'qualified', 'A.parse', 'util'),
            (7, 14, 'parameter', 'run', ''),
            (7, 30, 'parameter', 'run', ''),
            (8, 24, 'local', 'go', ''),
            (8, 42, 'local', 'go', ''),
            (9, 20, 'use', '', ''),
        ]),
    "go": (
        'package app\n'
        '\n'
        'import (\n'
        '\tu "example.com/util"\n'
        '\t"example.com/parse"\n'
        ')\n'
        '\n'
        'type Server struct{ parse int }\n'
        '\n'
        'func (s *Server) Parse(Parse string) int { return s.Parse(Parse) + u.Parse(parse.Parse) }\n'
        '\n'
        'func Parse() {}\n'
        , "Parse", [
            (10, 18, 'definition', '', ''),
            (10, 24, 'parameter', 'Server.Parse', ''),
            (10, 53, 'member', 'Server.Parse', 's'),
            (10, 59, 'parameter', 'Server.Parse', ''),
            (10, 70, 'qualified', 'Server.Parse', 'u'),
            (10, 82, 'qualified', 'Server.Parse', 'parse'),
            (12, 6, 'definition', '', ''),
        ]),
    "rust": (
        'use crate::util::parse;\n'
        '\n'
        'struct P { parse: u8 }\n'
        '\n'
        'impl P {\n'
        '    fn parse(&self, parse: u8) -> u8 { self.parse + Self::parse(self, 1) + util::parse(parse) }\n'
        '}\n'
        '\n'
        'fn run() { let parse = 1; parse + parse::x(); }\n'
        , "parse", [
            (1, 18, 'import', '', 'crate::util::parse'),
            (3, 12, 'use', 'P', ''),
            (6, 8, 'definition', '', ''),
            (6, 21, 'parameter', 'P.parse', ''),
            (6, 45, 'member', 'P.parse', 'self'),
            (6, 59, 'qualified', 'P.parse', 'Self'),
            (6, 82, 'qualified', 'P.parse', 'util'),
            (6, 88, 'parameter', 'P.parse', ''),
            (9, 16, 'local', 'run', ''),
            (9, 27, 'local', 'run', ''),
            (9, 35, 'use', 'run', ''),
        ]),
    "java": (
        'import com.x.Util;\n'
        'class A {\n'
        '  int parse;\n'
        '  int parse(int parse) { return this.parse + Util.parse(parse) + parse(1) + other.parse(); }\n'
        '  void run() { int parse = 2; for (String parse2 : xs) {} }\n'
        '}\n'
        , "parse", [
            (3, 7, 'use', 'A', ''),
            (4, 7, 'definition', 'A', ''),
            (4, 17, 'parameter', 'A.parse', ''),
            (4, 38, 'member', 'A.parse', 'this'),
            (4, 51, 'qualified', 'A.parse', 'Util'),
            (4, 57, 'parameter', 'A.parse', ''),
            (4, 66, 'use', 'A.parse', ''),
            (4, 83, 'qualified', 'A.parse', 'other'),
            (5, 20, 'local', 'A.run', ''),
        ]),
    "c": (
        'struct s { int parse; };\n'
        'static int parse(const char *parse) { return parse[0]; }\n'
        'int main(void) { struct s *p; int v = parse("x") + p->parse; return v; }\n'
        , "parse", [
            (1, 16, 'use', 's', ''),
            (2, 12, 'definition', '', ''),
            (2, 30, 'parameter', 'parse', ''),
            (2, 46, 'parameter', 'parse', ''),
            (3, 39, 'use', 'main', ''),
            (3, 55, 'member', 'main', 'p'),
        ]),
    "ruby": (
        'module Util\n'
        '  def self.parse(text) = text\n'
        'end\n'
        'class Parser\n'
        '  def parse(parse)\n'
        '    parse + Util.parse(parse) + self.parse(1) + helper\n'
        '  end\n'
        '  def helper = parse(2)\n'
        'end\n'
        , "parse", [
            (2, 12, 'definition', 'Util', ''),
            (5, 7, 'definition', 'Parser', ''),
            (5, 13, 'parameter', 'Parser.parse', ''),
            (6, 5, 'parameter', 'Parser.parse', ''),
            (6, 18, 'qualified', 'Parser.parse', 'Util'),
            (6, 24, 'parameter', 'Parser.parse', ''),
            (6, 38, 'member', 'Parser.parse', 'self'),
            (8, 16, 'use', 'Parser.helper', ''),
        ]),
}


@pytest.mark.parametrize("language", CASES)
def test_each_identifier_has_its_role_by_scope_and_its_container(language: str) -> None:
    source, name, expected = CASES[language]
    found = occurrences(source, language, build_symbols(source, language).symbols, (name,))
    assert [(o.line, o.column, o.role, o.container, o.via) for o in found] == expected


def test_imports_bind_what_they_take_and_locals_mark_their_binding_site() -> None:
    source = CASES["python"][0]
    found = {(o.line, o.column): o for o in occurrences(source, "python", build_symbols(source, "python").symbols)}
    assert found[2, 19] == Occurrence("parse", 2, 19, "import", "", ".util", "parse", True, 30)
    assert found[2, 26] == Occurrence("other", 2, 26, "import", "", ".util", "other", False, 37)  # `as oth` binds
    assert found[2, 35] == Occurrence("oth", 2, 35, "import", "", ".util", "other", True, 46)
    assert found[3, 8].binds is False  # `pkg` of `import pkg.util as u`
    assert found[3, 20] == Occurrence("u", 3, 20, "import", "", "pkg.util", "", True, 69)
    local = [o for o in found.values() if o.name == "parse" and o.role == "local"]
    assert [(o.line, o.binds) for o in local] == [(11, False), (11, True), (14, True), (15, False)]


def test_the_own_object_is_told_from_any_other_value() -> None:
    source = CASES["go"][0]
    own = {(o.line, o.column): o.own for o in occurrences(source, "go", build_symbols(source, "go").symbols)
           if o.role == "member"}
    assert own == {(10, 53): True}  # `s.Parse` through the receiver
    source = CASES["python"][0]
    assert [(o.line, o.own) for o in occurrences(source, "python", build_symbols(source, "python").symbols)
            if o.role == "member" and o.name == "parse"] == [(19, False)]  # `p.parse`: p is a local value
