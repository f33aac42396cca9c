"""The symbol index of source files (render/code/): golden outlines per language on small files written here,
and the inputs that break naive indexers (syntax errors, CRLF, tabs, Unicode names, repeats, nesting, one-liners,
a 5 MB generated file)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.documents.symbolsplice import checked_replace
from stringsh.render.code.cache import SymbolCache
from stringsh.render.code.index import SymbolIndex, build_symbols
from stringsh.render.code.languages import RULES, language_of
from stringsh.render.code.views import span

SAMPLES = {
    "app.py": '''\
import os


class Parser:
    """Parses."""

    @staticmethod
    def parse(text):
        return text.split()


def main():
    print(Parser.parse("a b"))
''',
    'A.java': """\
package demo;

/** A parser. */
public class Parser {
    private final String text;

    public Parser(String text) {
        this.text = text;
    }

    /** Splits. */
    @Override
    public String[] parse() {
        return text.split(" ");
    }

    public String[] parse(String sep) { return text.split(sep); }

    interface Visitor {
        void visit(String word);
    }

    enum Mode { FAST, SLOW }
}

record Point(int x, int y) {}
""",
    'a.c': """\
#include <stdio.h>

/* A point. */
struct point {
    int x, y;
};

typedef struct {
    int w, h;
} size_t2;

enum color { RED, GREEN };

// Adds.
static int add(int a, int b) {
    return a + b;
}

char *name(void) { return "x"; }

int main(void) {
    return add(1, 2);
}
""",
    'a.cpp': """\
#include <string>

namespace geo {

// A shape.
class Shape {
public:
    virtual double area() const = 0;
    double twice() const { return 2 * area(); }
};

struct Point { int x; int y; };

}  // namespace geo

double geo::Shape::half() const { return area() / 2; }

template <typename T>
T biggest(T a, T b) {
    return a > b ? a : b;
}

int main() { return 0; }
""",
    'a.go': """\
package main

import "fmt"

// Parser parses.
type Parser struct {
	text string
}

type Reader interface {
	Read() string
}

// Parse splits the text.
func (p *Parser) Parse() []string {
	return nil
}

func main() {
	fmt.Println("hi")
}
""",
    'a.js': """\
// Greets.
export function greet(name) {
  return `hi ${name}`;
}

/** A parser. */
class Parser {
  constructor(text) { this.text = text; }
  parse() {
    return this.text.split(" ");
  }
}

const handler = (event) => event.type;
const limit = 3;
function* gen() { yield 1; }
""",
    'a.rb': """\
# Tools.
module Tools
  # A parser.
  class Parser < Base
    def initialize(text)
      @text = text
    end

    def self.build(text) = new(text)

    def valid?
      !@text.empty?
    end
  end
end

def main
  Tools::Parser.build("x")
end
""",
    'a.rs': """\
use std::fmt;

/// A parser.
#[derive(Debug)]
pub struct Parser {
    text: String,
}

impl Parser {
    /// Makes one.
    pub fn new(text: &str) -> Self {
        Parser { text: text.to_string() }
    }

    fn parse(&self) -> Vec<&str> { self.text.split(' ').collect() }
}

impl fmt::Display for Parser {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.text)
    }
}

pub trait Shape {
    fn area(&self) -> f64;
}

enum Color { Red, Green }

mod tests {
    fn check() {}
}

macro_rules! square { ($x:expr) => { $x * $x }; }
""",
    'a.sh': """\
#!/bin/bash

# Greets.
greet() {
  echo "hi $1"
}

function cleanup {
  rm -f /tmp/x
}

greet world
""",
    'a.ts': """\
export interface Shape {
  area(): number;
}

type Id = string;

enum Color { Red, Green }

export function area(s: Shape): number;
export function area(s: Shape, scale: number): number;
export function area(s: Shape, scale = 1): number {
  return s.area() * scale;
}

export class Circle implements Shape {
  constructor(private r: number) {}
  @memo
  area(): number { return Math.PI * this.r ** 2; }
}

namespace Geometry {
  export const unit = () => 1;
}
""",
    'a.tsx': """\
import React from "react";

export const Button = ({ label }: { label: string }) => <button>{label}</button>;

export default function App() {
  return <Button label="go" />;
}
""",
}

OUTLINES = {
    "app.py": "Parser:class:L4-L9 Parser.parse:method:L7-L9 main:function:L12-L13",
    'A.java': (
        "Parser:class:L3-L24 Parser.Parser:constructor:L7-L9 Parser.parse-0:method:L11-L15 "
        "Parser.parse-1:method:L17 Parser.Visitor:interface:L19-L21 Parser.Visitor.visit:method:L20 "
        "Parser.Mode:enum:L23 Point:record:L26"
    ),
    'a.c': (
        "point:struct:L3-L6 size_t2:struct:L8-L10 color:enum:L12 add:function:L14-L17 name:function:L19 "
        "main:function:L21-L23"
    ),
    'a.cpp': (
        "geo:namespace:L3-L14 geo.Shape:class:L5-L10 geo.Shape.twice:method:L9 geo.Point:struct:L12 "
        "geo.Shape.half:function:L16 biggest:function:L18-L21 main:function:L23"
    ),
    'a.go': "Parser:struct:L5-L8 Reader:interface:L10-L12 Parser.Parse:method:L14-L17 main:function:L19-L21",
    'a.js': (
        "greet:function:L1-L4 Parser:class:L6-L12 Parser.constructor:method:L8 Parser.parse:method:L9-L11 "
        "handler:function:L14 gen:function:L16"
    ),
    'a.rb': (
        "Tools:module:L1-L15 Tools.Parser:class:L4-L14 Tools.Parser.initialize:method:L5-L7 "
        "Tools.Parser.build:method:L9 Tools.Parser.valid?:method:L11-L13 main:function:L17-L19"
    ),
    'a.rs': (
        "Parser:struct:L3-L7 Parser.new:method:L10-L13 Parser.parse:method:L15 Parser.fmt:method:L19-L21 "
        "Shape:trait:L24-L26 Shape.area:method:L25 Color:enum:L28 tests:module:L30-L32 "
        "tests.check:function:L31 square:macro:L34"
    ),
    'a.sh': "greet:function:L3-L6 cleanup:function:L8-L10",
    'a.ts': (
        "Shape:interface:L1-L3 Shape.area:method:L2 Id:type:L5 Color:enum:L7 area-0:function:L9 "
        "area-1:function:L10 area-2:function:L11-L13 Circle:class:L15-L19 Circle.constructor:method:L16 "
        "Circle.area:method:L17-L18 Geometry:namespace:L21-L23 Geometry.unit:function:L22"
    ),
    'a.tsx': "Button:function:L3 App:function:L5-L7",
}


def outline_of(text: str, language: str) -> str:
    return " ".join(f"{s.id}:{s.kind}:{span(s)}" for s in build_symbols(text, language).symbols)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_golden_outline_per_language(name: str) -> None:
    language = language_of(name)
    assert language is not None
    assert outline_of(SAMPLES[name], language) == OUTLINES[name]


def test_every_language_has_a_sample_and_unknown_suffixes_are_text() -> None:
    assert {language_of(name) for name in SAMPLES} == set(RULES)
    assert language_of("notes.txt") is None and language_of("README.md") is None and language_of("Makefile") is None
    assert language_of("SRC/Main.PY") == "python"


def test_ranges_hold_decorators_and_leading_comments_but_not_a_comment_after_code() -> None:
    text = "x = 1  # counter\n# Doc of f.\n# More.\n@cache\n@trace(1)\ndef f():\n    pass\n"
    (f,) = build_symbols(text, "python").symbols
    assert (f.start, f.end) == (1, 7)
    source = text.encode()[f.start_byte : f.end_byte].decode()
    assert source == "# Doc of f.\n# More.\n@cache\n@trace(1)\ndef f():\n    pass"
    spaced = "# Detached.\n\ndef g(): pass\n"
    (g,) = build_symbols(spaced, "python").symbols
    assert (g.start, g.end) == (2, 3)


def test_nested_functions_and_one_line_definitions() -> None:
    text = "def outer():\n    def inner(): return 1\n    class Local: pass\n    return inner\ndef one(): return 2\n"
    assert outline_of(text, "python") == (
        "outer:function:L1-L4 outer.inner:function:L2 outer.Local:class:L3 one:function:L5"
    )


def test_two_definitions_with_one_name_are_numbered_and_the_bare_name_is_ambiguous() -> None:
    index = build_symbols("def handler(): pass\n\ndef handler(): return 1\n", "python")
    assert index.block_ids() == ["handler-0", "handler-1"]
    assert index.ambiguity("handler") == [("handler-0", 1), ("handler-1", 3)]
    assert index.resolve("handler-1").start == 2  # type: ignore[union-attr]
    assert index.ambiguity("handler-1") == []


def test_a_bare_name_finds_a_method_when_it_is_the_only_one() -> None:
    index = build_symbols("class P:\n    def parse(self): pass\n    def other(self): pass\nclass Q:\n"
                          "    def other(self): pass\n", "python")
    assert index.resolve("parse").id == "P.parse"  # type: ignore[union-attr]
    assert index.ambiguity("other") == [("P.other", 3), ("Q.other", 5)]
    assert index.resolve("nothing") is None


def test_crlf_tabs_and_unicode_names() -> None:
    text = "class Café:\r\n\tdef grüß(self):\r\n\t\treturn 'ü'\r\n\r\ndef 名前():\r\n\tpass\r\n"
    index = build_symbols(text, "python")
    assert outline_of(text, "python") == "Café:class:L1-L3 Café.grüß:method:L2-L3 名前:function:L5-L6"
    method = index.resolve("Café.grüß")
    assert method is not None
    assert text.encode()[method.start_byte : method.end_byte].decode() == "def grüß(self):\r\n\t\treturn 'ü'"


def test_a_syntax_error_still_indexes_what_parses_and_says_where() -> None:
    index = build_symbols("def good():\n    return 1\n\ndef bad(:\n    pass\n", "python")
    assert index.resolve("good") is not None
    assert index.errors and index.errors[0][0] == 4
    assert index.error_note.startswith("[syntax] The python parser found an error at line 4, column ")
    assert build_symbols("def fine(): pass\n", "python").error_note == ""


def generated(chunks: int = 2600) -> str:
    """A generated module past 5 MB: two functions around thousands of long data lines."""
    data = "".join(f'CHUNK_{i} = "{"x" * 2000}"\n' for i in range(chunks))
    return f"def first():\n    return 1\n\n{data}\ndef last():\n    return 2\n"


def test_a_five_megabyte_generated_file() -> None:
    text = generated()
    assert len(text) > 5_000_000
    index = build_symbols(text, "python")
    assert index.block_ids() == ["first", "last"] and not index.errors
    last = index.resolve("last")
    assert last is not None and (last.start, last.end) == (2604, 2606)


def test_the_index_round_trips_through_the_signed_disk_cache(tmp_path) -> None:
    text = "def a(): pass\n" * 2000  # past the size kept in memory only
    cache = SymbolCache(tmp_path / "cache", key=lambda: b"k" * 32)
    built = cache.symbols(text, "python")
    again = SymbolCache(tmp_path / "cache", key=lambda: b"k" * 32).symbols(text, "python")
    assert again.rows == built.rows and again.block_ids() == built.block_ids()
    assert list((tmp_path / "cache").glob("*.sym"))
    stranger = SymbolCache(tmp_path / "cache", key=lambda: b"x" * 32)
    import hashlib

    key = hashlib.sha256(text.encode()).hexdigest() + "python"
    assert stranger.lookup(key) is None  # an entry another key signed is never trusted
    assert SymbolIndex.from_tuple(built.to_tuple()).rows == built.rows


CORPUS = [(name, symbol) for name in sorted(SAMPLES)
          for symbol in build_symbols(SAMPLES[name], language_of(name) or "").block_ids()]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CORPUS), st.booleans(), st.booleans(), st.booleans())
def test_replacing_a_symbol_with_its_own_text_changes_nothing(case, crlf, tabs, as_lines) -> None:
    """Its own text as `/edit` shows it (whole lines) or as the parser spans it: the file stays byte for byte."""
    name, block_id = case
    text = SAMPLES[name].replace("    ", "\t") if tabs else SAMPLES[name]
    text = text.replace("\n", "\r\n") if crlf else text
    language = language_of(name) or ""
    index = build_symbols(text, language)
    symbol = index.resolve(block_id)
    assert symbol is not None
    if as_lines:
        own = "\n".join(text.split("\n")[symbol.start : symbol.end]).replace("\r", "")
    else:
        own = text.encode()[symbol.start_byte : symbol.end_byte].decode()
    assert checked_replace(text, index, symbol, own, block_id, False, "").text == text


def test_whole_lines_sent_keep_the_rest_of_the_last_line_once() -> None:
    """A view shows whole lines; an edit sent as whole lines keeps the text after the definition (a comment after
    the closing brace) once, not twice."""
    text = "namespace geo {\nint f() { return 1; }\n} // namespace geo\n"
    index = build_symbols(text, "cpp")
    symbol = index.resolve("geo")
    assert symbol is not None
    body = "namespace geo {\nint f() { return 2; }\n} // namespace geo\n"
    assert checked_replace(text, index, symbol, body, "geo", False, "").text == body
