"""Secret deny list: path globs (globs.py semantics) checked on the requested and the resolved path, ignoring case."""

from __future__ import annotations

from collections.abc import Callable

from stringsh.workspace.globs import GlobSet

DEFAULT_DENY_GLOBS: tuple[str, ...] = (
    ".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    ".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials",
    ".ssh", ".gnupg", "**/.aws/credentials", "**/.aws/config", "**/.docker/config.json", "**/.kube/config",
    "*kubeconfig*", "credentials*.json", "service-account*.json", "**/.config/gcloud",
    ".azure", "*.tfstate", "*.tfvars",
)
DEFAULT_ALLOW_GLOBS: tuple[str, ...] = (".env.example", ".env.sample", ".env.template", "*.pub")
DEFAULT_REDACT_REGEXES: tuple[str, ...] = (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{22,}\b",
    r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b",
    r"\bsk-[A-Za-z0-9_-]{20,}\b",
    r"\bAIza[0-9A-Za-z_-]{35}\b",
)


class SecretMatcher:
    """A path is denied when it, or a folder it is in, matches a deny glob that no allow glob matches as well
    (allow globs are exceptions for the path or folder the deny glob matched: `.env.example` under `.env.*`)."""

    def __init__(self, deny: tuple[str, ...], allow: tuple[str, ...]) -> None:
        self.deny = GlobSet(deny, ignore_case=True)
        self.allow = GlobSet(allow, ignore_case=True)
        #: The workspace's masking (Workspace.redact, set by the Workspace): a name it changes is shown masked, so a
        #: refusal never suggests it (paths.Confiner._missing).
        self.shown: Callable[[str], str] | None = None

    def denied(self, rel: str) -> bool:
        return any(not self.allow.match(run) for run in self.deny.covering(rel))

    def denied_leaf(self, rel: str) -> bool:
        """`denied` for a path whose folder is known not to be (a walk never enters a denied folder)."""
        return self.deny.match_leaf(rel) and not self.allow.match(rel)
