"""The other languages agents speak, on the one engine: `operator/` (OPERATOR_CMD blocks), `tools/` (JSON
workspace tools) and `mcp/` (a Model Context Protocol server). A dialect parses and formats only: every operation,
policy check, journal entry and audit record is the engine's (`stringsh.workspace`), so a change made in one
dialect is listed, undone and audited the same way in all."""
