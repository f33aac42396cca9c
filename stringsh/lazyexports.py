"""Names a package exports but loads on first use (PEP 562), and patterns compiled on first use, so importing a
module stays cheap."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import re


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


class _LazyPattern:
    """A regular expression compiled on first use, then answering as the compiled pattern does: each attribute
    (`match`, `search`, `sub`, `pattern`, …) is taken from it once and kept, so later calls cost a plain lookup."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_source":
            raise AttributeError(name)
        import re

        value = getattr(re.compile(*self._source), name)  # re's own cache compiles each pattern once
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, deferred to the first use: a module of ~10 patterns costs a new process a few
    milliseconds to load otherwise, and most processes use few of them (a repeat `/open` reads its index from the
    cache instead of scanning)."""
    return _LazyPattern(pattern, flags)  # type: ignore[return-value]
