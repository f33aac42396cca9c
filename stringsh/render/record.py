"""A dataclass's equality, repr and `replace` for hand-written classes, without importing `dataclasses`.

`dataclasses` imports `inspect` (and with it ast, dis and tokenize), and each decorated class compiles its methods
when its module loads: together they cost a new process's first `/open` more than reading and hashing a 10 MB file
(bench/documents.py, the repeat-open row). The classes on that path list their fields in `_fields` and write their
own `__init__`; this base gives them the rest.
"""

from __future__ import annotations

from typing import Any, TypeVar

R = TypeVar("R", bound="Record")


class Record:
    """Equality and repr over `_fields` (the attributes, in order), as a dataclass compares and shows them."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def replace(self: R, **changes: Any) -> R:
        """A copy with some fields changed (`dataclasses.replace`; every field is set, none is re-derived)."""
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__qualname__} has no field {sorted(unknown)[0]!r}")
        new = object.__new__(type(self))
        for name in self._fields:
            setattr(new, name, changes[name] if name in changes else getattr(self, name))
        return new
