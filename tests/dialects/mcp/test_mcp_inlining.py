"""The tools' schemas are published with their `$defs` inlined (inlining.py), so a client checking 1,000 listed
entries resolves no reference per entry: no schema holds a `$ref` but the one recursive definition
(`directory_tree`'s node), and each inlined schema accepts and refuses exactly what pydantic's declared one did.
tools.json is the served tool list (test_mcp_lazy_start.py holds it to the SDK's reply); test_mcp_structured.py
checks every tool's real results against the schemas the server lists."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema.validators import validator_for
from pydantic import BaseModel

from stringsh.dialects.mcp import outputs, toollist
from stringsh.dialects.mcp.inlining import inline
from stringsh.dialects.mcp.tools_files import Edit

TOOLS = json.loads(toollist.result_bytes())["tools"]
TREE_REF = {"$ref": "#/$defs/TreeNode"}


def refs(node: Any) -> list[Any]:
    """Every `$ref` in `node`, in order."""
    if isinstance(node, list):
        return [ref for item in node for ref in refs(item)]
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [ref for value in node.values() for ref in refs(value)]
    return []


def valid(schema: dict[str, Any], instance: Any) -> bool:
    validator = validator_for(schema)
    validator.check_schema(schema)
    return validator(schema).is_valid(instance)


def test_no_served_schema_has_a_ref_but_the_recursive_tree_node() -> None:
    found = {(tool["name"], key): refs(tool[key]) for tool in TOOLS for key in ("inputSchema", "outputSchema")
             if refs(tool.get(key))}
    assert found == {("directory_tree", "outputSchema"): ["#/$defs/TreeNode", "#/$defs/TreeNode"]}
    tree = next(tool["outputSchema"] for tool in TOOLS if tool["name"] == "directory_tree")
    assert list(tree["$defs"]) == ["TreeNode"] and tree["properties"]["tree"]["items"] == TREE_REF
    assert all("$defs" not in tool["inputSchema"] and "$defs" not in tool.get("outputSchema", {})
               for tool in TOOLS if tool["name"] != "directory_tree")


def test_listed_entries_are_written_out() -> None:
    listing = next(tool["outputSchema"] for tool in TOOLS if tool["name"] == "list_directory")
    entry = listing["properties"]["entries"]["items"]
    assert entry["type"] == "object" and entry["required"] == ["name", "type"]
    assert entry["properties"]["name"]["type"] == "string"
    assert entry["properties"]["type"]["enum"] == ["file", "directory"] and "type" not in entry["properties"]["type"]


def test_an_input_schema_keeps_the_type_beside_an_enum() -> None:
    """Clients that turn arguments into a model's function declaration want a `type` on every property."""
    sized = next(tool["inputSchema"] for tool in TOOLS if tool["name"] == "list_directory_with_sizes")
    assert sized["properties"]["sortBy"]["enum"] == ["name", "size"]
    assert sized["properties"]["sortBy"]["type"] == "string"


ENTRY = {"name": "a.txt", "type": "file"}
CASES: list[tuple[type[BaseModel], bool, list[Any]]] = [
    (outputs.ListingOut, True, [
        {"content": "x", "entries": []}, {"content": "x", "entries": [ENTRY, {"name": "d", "type": "directory"}]},
        {"content": "x", "entries": [{"name": "a", "type": "link"}]}, {"content": "x", "entries": [{"name": "a"}]},
        {"content": "x", "entries": [{"name": 1, "type": "file"}]}, {"content": "x", "entries": ["a.txt"]},
        {"content": "x", "entries": [{"name": "a", "type": True}]}, {"content": "x", "entries": [{"name": "a",
                                                                                                  "type": None}]},
        {"content": "x", "entries": [{**ENTRY, "extra": 1}]}, {"content": "x"}, {"content": 2, "entries": []}]),
    (outputs.SizedListingOut, True, [
        {"content": "x", "entries": [{**ENTRY, "size": 3}, {"name": "d", "type": "directory", "size": None}],
         "totalFiles": 1, "totalDirectories": 1, "combinedSize": 3},
        {"content": "x", "entries": [{**ENTRY, "size": "3"}], "totalFiles": 1, "totalDirectories": 0,
         "combinedSize": 3},
        {"content": "x", "entries": [ENTRY], "totalFiles": 1, "totalDirectories": 0, "combinedSize": 3}]),
    (outputs.TreeOut, True, [
        {"content": "x", "tree": [{"name": "d", "type": "directory", "children": [ENTRY, {"name": "e", "type":
                                   "directory", "children": [{"name": "f", "type": "file"}]}]}]},
        {"content": "x", "tree": [{"name": "d", "type": "directory", "children": [{"name": "e", "type": "directory",
                                   "children": [{"name": "f", "type": "link"}]}]}]},
        {"content": "x", "tree": [{"name": "d", "type": "directory", "children": None}]},
        {"content": "x", "tree": [{"name": "d", "type": "directory", "children": [{"type": "file"}]}]}]),
    (outputs.GrepOut, True, [
        {"content": "x", "lines": [{"path": "a", "line": 1, "text": "t", "match": True}], "matches": 1},
        {"content": "x", "lines": [{"path": "a", "line": "1", "text": "t", "match": True}], "matches": 1}]),
    (outputs.MediaOut, True, [
        {"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]},
        {"content": [{"type": "resource", "resource": {"uri": "file:///a", "blob": "AA=="}}]},
        {"content": [{"type": "resource", "resource": {"uri": "file:///a"}}]},
        {"content": [{"type": "video", "data": "AA==", "mimeType": "video/mp4"}]}]),
    (Edit, False, [{"oldText": "a", "newText": "b"}, {"oldText": "a"}, {"oldText": 1, "newText": "b"}]),
]


@pytest.mark.parametrize(("model", "output", "instances"), CASES, ids=[case[0].__name__ for case in CASES])
def test_an_inlined_schema_accepts_what_the_declared_one_does(model: type[BaseModel], output: bool,
                                                             instances: list[Any]) -> None:
    declared = model.model_json_schema()
    inlined = inline(declared, output=output)
    assert [valid(inlined, instance) for instance in instances] == [valid(declared, instance)
                                                                    for instance in instances]
    assert any(valid(declared, instance) for instance in instances)
    assert not all(valid(declared, instance) for instance in instances)
    assert declared == model.model_json_schema()  # left as it was


def test_a_reference_with_its_own_constraint_keeps_both() -> None:
    schema = {"$defs": {"Short": {"type": "string", "maxLength": 3}},
              "properties": {"a": {"$ref": "#/$defs/Short", "maxLength": 2, "description": "A"}}}
    inlined = inline(schema)
    assert inlined == {"properties": {"a": {"allOf": [{"type": "string", "maxLength": 3}], "maxLength": 2,
                                            "description": "A"}}}
    assert [valid(inlined, {"a": text}) for text in ("ab", "abc", "abcd")] == [True, False, False]
