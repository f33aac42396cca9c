"""Each tool's `title`: the short human-readable name a client shows (the MCP Inspector, a harness's approval
prompt), set on the SDK's tools once every module registered its own, so the tool modules stay as they are.
tests/dialects/mcp/test_mcp_capabilities.py holds this list and the registered tools equal."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

TITLES = {
    "read_text_file": "Read a text file",
    "read_media_file": "Read an image or audio file",
    "read_multiple_files": "Read several files",
    "write_file": "Write a file",
    "edit_file": "Edit a file by exact text",
    "create_directory": "Create a folder",
    "list_directory": "List a folder",
    "list_directory_with_sizes": "List a folder with sizes",
    "directory_tree": "Folder tree",
    "move_file": "Move or rename a file",
    "search_files": "Find files by name",
    "get_file_info": "File information",
    "list_allowed_directories": "Allowed folders",
    "string": "Run a String Command",
    "grep": "Search file contents",
    "open": "Open a file, block or page",
    "edit_block": "Replace a block",
    "replace": "Replace text in a file or block",
    "patch": "Apply a unified diff",
    "apply_patch": "Apply a Codex patch",
    "changes": "List or show changes",
    "revert": "Revert a change",
    "undo": "Undo this session's last change",
    "bash": "Run a shell command (sandboxed)",
    "symbols_overview": "Symbols of a file",
    "find_symbol": "Find definitions",
    "view_symbol": "Show a symbol",
    "replace_symbol": "Replace a symbol",
    "insert_symbol": "Insert before or after a symbol",
    "find_references": "Find references",
    "find_definition": "Go to definition",
    "rename_symbol": "Rename a symbol everywhere",
    "repo_map": "Repository map",
}


def register(server: MCPServer, calls: object) -> None:
    """Give every registered tool its title (a tool missing from TITLES keeps none; the test catches it)."""
    del calls
    for tool in server._tool_manager.list_tools():
        tool.title = tool.title or TITLES.get(tool.name)
