"""The engine's facade (`stringsh/workspace/__init__.py`): the only module upper layers import (the forbidden
contract in pyproject.toml), so each name it exports must load, and none may share a submodule's name (once that
submodule is imported, the package attribute would be the module, not the exported name)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import stringsh.workspace as facade


def test_every_exported_name_loads_from_its_module() -> None:
    assert sorted(facade.__all__) == sorted(facade._WHERE)
    for name in facade.__all__:
        module, _, attr = facade._WHERE[name].partition(":")
        assert getattr(facade, name) is getattr(sys.modules[f"stringsh.workspace.{module}"], attr or name), name


def test_no_exported_name_is_a_submodule_name() -> None:
    submodules = {info.name for info in pkgutil.iter_modules(facade.__path__)}
    assert "engine" in submodules
    assert sorted(set(facade.__all__) & submodules) == []


def test_importing_the_facade_loads_no_engine_module() -> None:
    """Lazy: `from stringsh.workspace import Workspace` in a module header costs nothing until the name is used."""
    probe = ("import sys, stringsh.workspace; "
             "print(sorted(m for m in sys.modules if m.startswith('stringsh.workspace.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"
