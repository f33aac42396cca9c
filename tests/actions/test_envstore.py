from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from stringsh.actions.envstore import MASK, EnvStore, config_dir, echo, mask_values, scope_chain, scope_for_topic
from stringsh.actions.envvars import EnvResolver, unresolved_error, unresolved_names
from stringsh.errors import StringError


def test_config_dir_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(tmp_path / "cfg"))
    assert config_dir() == tmp_path / "cfg"
    monkeypatch.delenv("STRINGSH_CONFIG_DIR")
    assert config_dir().name == "stringsh"


def test_set_get_persist_private(tmp_path: Path) -> None:
    store = EnvStore(tmp_path)
    store.set("API_TOKEN", "s3cret-value")
    assert EnvStore(tmp_path).get("API_TOKEN") == "s3cret-value"
    path = tmp_path / "env.json"
    assert json.loads(path.read_text()) == {"env": {"API_TOKEN": "s3cret-value"}}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env.lock", "env.json"]


def test_scopes(tmp_path: Path) -> None:
    store = EnvStore(tmp_path)
    store.set("A", "global-a")
    store.set("A", "app-a", "app:x")
    store.set("B", "cfg-b", "app:x:cfg")
    assert scope_chain("app:x:cfg") == ["app:x:cfg", "app:x", "global"]
    assert store.get("A", "app:x:cfg") == "app-a" and store.get("A") == "global-a"
    assert store.get("B") is None
    assert store.items("app:x:cfg") == [("B", "cfg-b", "app:x:cfg"), ("A", "app-a", "app:x")]
    assert (tmp_path / "apps" / "x" / "cfg" / "env.json").exists()
    assert scope_for_topic("main") == "global" and scope_for_topic("app:x") == "app:x"


def test_bad_name_and_corrupt_file(tmp_path: Path) -> None:
    with pytest.raises(StringError):
        EnvStore(tmp_path).set("lower", "x")
    (tmp_path / "env.json").write_text("{not json")
    with pytest.raises(StringError) as info:
        EnvStore(tmp_path).get("X")
    assert info.value.code == "LOAD_ERROR"


def test_masking() -> None:
    assert echo("API_TOKEN", "global") == f'$API_TOKEN = "{MASK}" (global)'
    assert mask_values("token=abcd1234 again abcd1234", ["abcd1234", ""]) == f"token={MASK} again {MASK}"


def test_resolver_order_and_unresolved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = EnvStore(tmp_path)
    store.set("FROM_STORE", "stored")
    monkeypatch.setenv("FROM_PROCESS", "proc")
    monkeypatch.setenv("FROM_STORE", "process-loses")
    resolver = EnvResolver(store, extra={"CTX": "ctx"}, environ={"FROM_PROCESS": "passed", "FROM_STORE": "loses"})
    assert resolver.resolve("$CTX $FROM_STORE $FROM_PROCESS $NOT_SET_ANYWHERE_42") == (
        "ctx stored passed $NOT_SET_ANYWHERE_42"
    )
    assert resolver.used == ["ctx", "stored", "passed"]
    # without the page's own process variables (an untrusted or remote page) stringsh's environment is never read
    bare = EnvResolver(store)
    assert bare.resolve("$FROM_PROCESS $FROM_STORE") == "$FROM_PROCESS stored"
    assert bare.withheld(["FROM_PROCESS", "NOT_SET_ANYWHERE_42"]) == ["FROM_PROCESS"]
    assert unresolved_names("a $NOT_SET_ANYWHERE_42 $lower", "$B") == ["NOT_SET_ANYWHERE_42", "B"]
    err = unresolved_error(["A", "B"])
    assert err.message == (
        'Unresolved environment variables:\n  $A\n  $B\n\nSet them:\n  /set $A = "..."\n  /set $B = "..."'
    )


def test_concurrent_sets_from_two_processes_keep_both(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom pathlib import Path\nfrom stringsh.actions.envstore import EnvStore\n"
        "store = EnvStore(Path(sys.argv[1]))\n"
        "for i in range(40):\n    store.set(f'{sys.argv[2]}_{i}', str(i))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), name]) for name in ("A", "B")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    names = {name for name, _, _ in EnvStore(tmp_path).items()}
    assert names == {f"{p}_{i}" for p in "AB" for i in range(40)}
