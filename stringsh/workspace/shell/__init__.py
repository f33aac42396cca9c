"""Persistent and one-shot bash for the workspace: sentinel protocol, clean capped output, sandbox providers.

Names load on first use (PEP 562) so that importing the package, as every command module does, does not pull
in pexpect: scripted start-up stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.lazyexports import lazy_exports

if TYPE_CHECKING:
    from stringsh.workspace.shell.oneshot import run_once
    from stringsh.workspace.shell.providers import (
        BubblewrapProvider,
        BwrapProbe,
        LocalProvider,
        Provider,
        make_provider,
    )
    from stringsh.workspace.shell.result import ShellResult
    from stringsh.workspace.shell.session import ShellSession
    from stringsh.workspace.shell.settings import ShellSettings, settings_from_policy

_WHERE = {
    "run_once": "oneshot",
    "BubblewrapProvider": "providers",
    "BwrapProbe": "providers",
    "LocalProvider": "providers",
    "Provider": "providers",
    "make_provider": "providers",
    "ShellResult": "result",
    "ShellSession": "session",
    "ShellSettings": "settings",
    "settings_from_policy": "settings",
}

__all__ = [
    "BubblewrapProvider",
    "BwrapProbe",
    "LocalProvider",
    "Provider",
    "ShellResult",
    "ShellSession",
    "ShellSettings",
    "make_provider",
    "run_once",
    "settings_from_policy",
]


__getattr__ = lazy_exports(__name__, _WHERE)
