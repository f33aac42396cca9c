"""Prompts and progress for command line programs, in the style of click's termui."""

from __future__ import annotations

import functools
import os
import sys
import typing as t
from dataclasses import dataclass, field

if t.TYPE_CHECKING:
    from collections.abc import Iterator

F = t.TypeVar("F", bound=t.Callable[..., t.Any])

_ansi_colors = {"black": 30, "red": 31, "green": 32, "yellow": 33}


def _build_prompt(text: str, suffix: str, default: t.Any = None) -> str:
    prompt = text
    if default is not None:
        prompt = f"{prompt} [{default}]"
    return f"{prompt}{suffix}"


if sys.platform == "win32":

    def getchar(echo: bool = False) -> str:
        import msvcrt

        return msvcrt.getwch()

else:

    def getchar(echo: bool = False) -> str:
        return sys.stdin.read(1)


@t.overload
def style(text: str, fg: str | None = None) -> str: ...


@t.overload
def style(text: bytes, fg: str | None = None) -> bytes: ...


def style(text, fg=None):
    """Wrap text in ANSI codes for the given foreground colour."""
    if fg is None:
        return text
    return f"\033[{_ansi_colors[fg]}m{text}\033[0m"


def pass_meta(key: str) -> t.Callable[[F], F]:
    """Decorator factory: passes a value from the context's meta to the function."""

    def decorator(f: F) -> F:
        @functools.wraps(f)
        def new_func(*args: t.Any, **kwargs: t.Any) -> t.Any:
            return f(os.environ.get(key), *args, **kwargs)

        return t.cast(F, new_func)

    return decorator


@dataclass
class ProgressBar:
    """Draws a bar while iterating."""

    length: int
    label: str = ""
    width: int = 30
    _shown: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.pos = 0

    @property
    def pct(self) -> float:
        return self.pos / self.length if self.length else 1.0

    @pct.setter
    def pct(self, value: float) -> None:
        self.pos = int(value * self.length)

    def render(self) -> str:
        filled = int(self.pct * self.width)
        return f"{self.label} [{'#' * filled}{'-' * (self.width - filled)}]"

    def __iter__(self) -> Iterator[int]:
        for pos in range(self.length):
            self.pos = pos
            self._shown.append(self.render())
            yield pos

    @classmethod
    def of(cls, items: list[t.Any], label: str = "") -> ProgressBar:
        return cls(len(items), label)

    class Style:
        fill = "#"
        empty = "-"


async def confirm_async(text: str, default: bool = False) -> bool:
    # Run the blocking prompt in a thread so the loop keeps serving.
    import asyncio

    answer = await asyncio.to_thread(input, _build_prompt(text, ": ", "Y/n" if default else "y/N"))
    return answer.strip().lower() in ("y", "yes") or (not answer and default)


__all__ = ["ProgressBar", "confirm_async", "getchar", "pass_meta", "style"]
