"""Module-scoped user folders for the module-scoped MCP servers (conftest's own are per test)."""

from __future__ import annotations

import pytest

from tests.dialects.mcp.client import user_env


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return user_env(tmp_path_factory.mktemp("mcpuser"))
