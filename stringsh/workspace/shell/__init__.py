"""Persistent and one-shot bash for the workspace: sentinel protocol, clean capped output, sandbox providers."""

from stringsh.workspace.shell.oneshot import run_once
from stringsh.workspace.shell.providers import BubblewrapProvider, LocalProvider, Provider, make_provider
from stringsh.workspace.shell.result import ShellResult
from stringsh.workspace.shell.session import ShellSession
from stringsh.workspace.shell.settings import ShellSettings, settings_from_policy

__all__ = [
    "BubblewrapProvider",
    "LocalProvider",
    "Provider",
    "ShellResult",
    "ShellSession",
    "ShellSettings",
    "make_provider",
    "run_once",
    "settings_from_policy",
]
