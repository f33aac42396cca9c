"""Which policy is in force, and why: built-in defaults, then the user's `<config>/policy.toml` (trusted), then
`--policy FILE` (trusted: the user typed it) or the workspace's own `stringsh.toml`, which may only narrow what
is below it unless the user trusted the workspace (trust.py). Widening settings of an untrusted workspace are
ignored, and the one start-up line (`startup_line`) names them."""

from __future__ import annotations

import os
from pathlib import Path

from stringsh.errors import StringError
from stringsh.userdirs import use_state_dir, user_policy_file
from stringsh.workspace import trust
from stringsh.workspace.envpolicy import DEFAULT_ENVIRONMENT, narrow_environment
from stringsh.workspace.policy import (
    CONFIRM_MODES,
    POLICY_FILE,
    Changes,
    Git,
    JournalKeep,
    Limits,
    Operator,
    Permissions,
    Policy,
    Root,
    Secrets,
    Shell,
    parse_policy,
    read_policy_file,
)

WORKSPACE = "workspace stringsh.toml"
#: How the start-up line names that layer to a person.
SHOWN_WORKSPACE = "this workspace's stringsh.toml"


#: How the start-up line and replies name the command-line switch that turns the shell sandbox off.
NO_SANDBOX = "--no-sandbox"


def load_policy(root: str | Path, policy_file: Path | None = None, *, no_sandbox: bool = False) -> Policy:
    """Defaults, then the user's config policy, then `policy_file` or the workspace's `stringsh.toml`; then
    `no_sandbox` (the user typed `--no-sandbox`: trusted, and last, so no file turns the sandbox back on). A
    `[journal] state_dir` of a trusted layer becomes this process's state folder (unless STRINGSH_STATE_DIR is
    set): every user of it (the engine, `stringsh audit`, the sandbox hiding it) asks userdirs.state_dir."""
    policy = layered_policy(Path(root).resolve(), policy_file)
    if policy.state_dir:  # the whole process (and the shell's sandbox, which hides it) uses that state folder
        use_state_dir(policy.state_dir)
    if no_sandbox:
        policy = policy._replace(shell=policy.shell._replace(sandbox=False), sandbox_set_by=NO_SANDBOX)
    return policy


def workspace_policy_bytes(root: Path) -> bytes | None:
    """The workspace's `stringsh.toml` as read for trust (None when it has none); refused like `layered_policy`."""
    path = root / POLICY_FILE
    if not os.path.lexists(path):
        return None
    return read_policy_file(path, inside=root).encode("utf-8")


def layered_policy(root: Path, policy_file: Path | None) -> Policy:
    policy = Policy.default(root)
    layers, files = ["defaults"], []
    user = user_policy_file()
    if os.path.lexists(user):
        policy = parse_policy(read_policy_file(user), user, root, policy)
        layers.append(shown_path(user))
        files.append(user.resolve())
    ws_file = root / POLICY_FILE
    ws_text = None
    if policy_file is None:
        ws_text = read_policy_file(ws_file, inside=root) if os.path.lexists(ws_file) else None
        trusted = trust.is_trusted(root, ws_text.encode("utf-8") if ws_text is not None else None)
    else:
        try:  # not applied, but its hash still says whether the user trusts this folder
            trusted = trust.is_trusted(root, workspace_policy_bytes(root))
        except StringError:
            trusted = False
    ignored: list[str] = []
    if policy_file is not None:
        policy = parse_policy(read_policy_file(Path(policy_file)), Path(policy_file), root, policy)
        layers.append(f"--policy {shown_path(Path(policy_file))}")
        files.append(Path(policy_file).resolve())
    elif ws_text is not None:
        candidate = parse_policy(ws_text, ws_file, root, policy)
        if candidate.state_dir != policy.state_dir:  # trusted or not: a repository never says where its journal is
            candidate = candidate._replace(state_dir=policy.state_dir)
            ignored.append("journal.state_dir")
        policy = candidate if trusted else narrowed(policy, candidate, ignored)
        layers.append(WORKSPACE)
        files.append(ws_file.resolve())
    return policy._replace(trusted=trusted, files=tuple(files), layers=tuple(layers), ignored=tuple(ignored))


def shown_path(path: Path) -> str:
    """A path as the user would type it: `~/...` under the home folder."""
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home):] if home not in ("", "/") and text.startswith(home + "/") else text


def policy_summary(policy: Policy) -> str:
    """The layers in force, in a line `/info` shows: `defaults + ~/.config/stringsh/policy.toml; workspace
    stringsh.toml narrows it (untrusted: 1 widening setting ignored: permissions.shell)`."""
    line = " + ".join(layer for layer in policy.layers if layer != WORKSPACE)
    if WORKSPACE not in policy.layers:
        return line
    if policy.trusted:
        return f"{line} + {WORKSPACE} (trusted)"
    if not policy.ignored:
        return f"{line}; {WORKSPACE} narrows it (untrusted)"
    count = len(policy.ignored)
    return (f"{line}; {WORKSPACE} narrows it (untrusted: {count} widening setting{'s' if count > 1 else ''} "
            f"ignored: {', '.join(policy.ignored)}; run 'stringsh trust' to allow them)")


def startup_line(policy: Policy, shell_note: str | None = None) -> str | None:
    """The one start-up line for stderr, or None when there is nothing to say (the built-in defaults alone, the
    shell sandboxed): the policy files in force and where each came from; for an untrusted workspace file, that it
    narrows the policy and what of it was ignored; the shell's environment when it is not the default
    (`shell env: core + MYAPP_*`, shell/environment.py); then `shell_note` (why the shell is not sandboxed,
    shell/sandboxing.py) when there is one."""
    sources = [layer for layer in policy.layers if layer not in ("defaults", WORKSPACE)]
    workspace = WORKSPACE in policy.layers
    if workspace and policy.trusted:
        sources.append(f"{SHOWN_WORKSPACE} (trusted)")
    parts = [f"policy from {' and '.join(sources)}"] if sources else []
    if workspace and not policy.trusted:
        narrows = f"{SHOWN_WORKSPACE} narrows {'it' if sources else 'the policy'} (untrusted"
        if policy.ignored:
            count = len(policy.ignored)
            narrows += (f": {count} widening setting{'s' if count > 1 else ''} ignored: {', '.join(policy.ignored)}; "
                        f"run 'stringsh trust' to allow {'them' if count > 1 else 'it'}")
        parts.append(narrows + ")")
    if policy.environment != DEFAULT_ENVIRONMENT:  # the shell's module loads only then: `-c /ls` stays light
        from stringsh.workspace.shell.environment import describe

        parts.append(f"shell env: {describe(policy.environment)}")
    if shell_note is not None:
        parts.append(shell_note)
    return f"stringsh: {'; '.join(parts)}" if parts else None


# -- narrowing ----------------------------------------------------------------------------------------------------


def narrowed(base: Policy, wanted: Policy, ignored: list[str]) -> Policy:
    """`wanted` with every setting that widens `base` put back to base's value, its name added to `ignored`."""
    roots = wanted.roots
    if roots != base.roots and not all(_inside(root, base.roots) for root in roots):
        roots, _ = base.roots, ignored.append("roots")
    flags = zip(Permissions._fields, base.permissions, wanted.permissions, strict=True)
    limits = zip(Limits._fields, base.limits, wanted.limits, strict=True)
    policy = wanted._replace(
        roots=roots,
        permissions=Permissions(*(_flag(b, w, f"permissions.{n}", ignored, base_on=False) for n, b, w in flags)),
        limits=Limits(*(_at_most(b, w, f"limits.{n}", ignored) for n, b, w in limits)),
        secrets=_secrets(base.secrets, wanted.secrets, ignored),
        changes=_changes(base.changes, wanted.changes, ignored),
        shell=Shell(
            timeout=_at_most(base.shell.timeout, wanted.shell.timeout, "shell.timeout", ignored),
            output_cap=_at_most(base.shell.output_cap, wanted.shell.output_cap, "shell.output_cap", ignored),
            sandbox=_flag(base.shell.sandbox, wanted.shell.sandbox, "shell.sandbox", ignored, base_on=True),
        ),
        journal=JournalKeep(*(_at_most(b, w, f"journal.{n}", ignored)  # more history: more of the user's disk
                              for n, b, w in zip(JournalKeep._fields, base.journal, wanted.journal, strict=True))),
        operator=Operator(confirm=_confirm(base.operator.confirm, wanted.operator.confirm, ignored)),
        git=_git(base.git, wanted.git, ignored),
        environment=narrow_environment(base.environment, wanted.environment, ignored),
    )
    if not policy.shell.sandbox or policy.shell.sandbox != wanted.shell.sandbox:
        # off (only the layer below can have turned it off) or an ignored `sandbox = false`: who set it stays
        policy = policy._replace(sandbox_set_by=base.sandbox_set_by)
    return policy


def _git(base: Git, wanted: Git, ignored: list[str]) -> Git:
    """A folder outside the roots the repository may lead to widens: only the user's own policy adds one."""
    if set(wanted.allow_outside) - set(base.allow_outside):
        ignored.append("git.allow_outside")
        return base
    return wanted


def _confirm(base: str, wanted: str, ignored: list[str]) -> str:
    """Towards "deny" narrows; towards "allow" (fewer questions, or none) widens."""
    if CONFIRM_MODES.index(wanted) < CONFIRM_MODES.index(base):
        ignored.append("operator.confirm")
        return base
    return wanted


def _inside(root: Root, base: tuple[Root, ...]) -> bool:
    """A root inside one the layer below has, and no more writable than it."""
    return any(
        root.path.is_relative_to(b.path) and (root.mode == "read_only" or b.mode == "read_write") for b in base
    )


def _flag(base: bool, wanted: bool, name: str, ignored: list[str], *, base_on: bool) -> bool:
    """A permission may go from on to off; the sandbox (`base_on`) from off to on. Not the other way."""
    widening = (wanted and not base) if not base_on else (base and not wanted)
    if widening:
        ignored.append(name)
        return base
    return wanted


def _at_most(base: float, wanted: float, name: str, ignored: list[str]) -> float:
    if wanted > base:
        ignored.append(name)
        return base
    return wanted


def _secrets(base: Secrets, wanted: Secrets, ignored: list[str]) -> Secrets:
    """More denies narrow; allow globs (exceptions), another mask and hard links widen. Redaction patterns would
    narrow, but a pattern runs on every byte shown, and a catastrophic one (`(x+x+)+y`) hangs every view: an
    untrusted workspace's own patterns wait for trust like a widening setting."""
    regexes = wanted.redact_regexes
    if set(regexes) - set(base.redact_regexes):
        regexes, _ = base.redact_regexes, ignored.append("secrets.redact_regexes")
    allow = wanted.allow_globs
    if allow != base.allow_globs:
        allow, _ = base.allow_globs, ignored.append("secrets.allow_globs")
    replacement = wanted.replacement
    if replacement != base.replacement:
        replacement, _ = base.replacement, ignored.append("secrets.replacement")
    hardlinks = _flag(base.allow_hardlinks, wanted.allow_hardlinks, "secrets.allow_hardlinks", ignored, base_on=False)
    return wanted._replace(
        redact_regexes=regexes, allow_globs=allow, replacement=replacement, allow_hardlinks=hardlinks
    )


def _changes(base: Changes, wanted: Changes, ignored: list[str]) -> Changes:
    """The allow-list narrows when the layer below allowed everything or the new globs are a subset of its own."""
    globs = wanted.allow_globs
    if globs != base.allow_globs and base.allow_globs != ("**",) and not set(globs) <= set(base.allow_globs):
        globs, _ = base.allow_globs, ignored.append("changes.allow_globs")
    return Changes(
        allow_globs=globs,
        deny_globs=wanted.deny_globs,  # more denies only narrow (parse_policy adds them to the layer below's)
        max_files=int(_at_most(base.max_files, wanted.max_files, "changes.max_files", ignored)),
        max_loc=int(_at_most(base.max_loc, wanted.max_loc, "changes.max_loc", ignored)),
    )
