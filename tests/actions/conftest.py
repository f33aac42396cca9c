from __future__ import annotations

import pytest

from tests.actions.loopback import serve


@pytest.fixture(scope="module")
def server():
    with serve() as base:
        yield base
