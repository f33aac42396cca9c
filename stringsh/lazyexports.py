"""Names a package exports but loads on first use (PEP 562), so importing the package stays cheap."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `package.<module>` when `name` is first asked for: `where[name]` is
    `module`, or `module:attr` when the public name differs from the module's own (so it cannot be mistaken for a
    submodule of the same name)."""

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = where[name].partition(":")
        return getattr(import_module(f"{package}.{module}"), attr or name)

    return __getattr__
