"""`stringsh mcp`: the engine behind a Model Context Protocol server (the official `mcp` SDK), stdio or HTTP."""
