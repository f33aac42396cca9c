"""Secret deny list: path globs checked on the requested and the resolved path, case-insensitively."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

DEFAULT_DENY_GLOBS: tuple[str, ...] = (
    ".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
    ".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials",
    ".ssh", ".gnupg", ".aws/credentials", ".aws/config", ".docker/config.json", ".kube/config",
    "*kubeconfig*", "credentials*.json", "service-account*.json", ".config/gcloud",
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
    """A pattern without `/` matches any single path component (so `.ssh` denies the whole folder);
    one with `/` matches any run of consecutive components. Allow globs are exceptions for the component
    (or run) that matched."""

    def __init__(self, deny: tuple[str, ...], allow: tuple[str, ...]) -> None:
        self.deny = tuple(g.lower().strip("/") for g in deny if g.strip("/"))
        self.allow = tuple(g.lower().strip("/") for g in allow if g.strip("/"))

    def _hits(self, globs: tuple[str, ...], parts: list[str]) -> list[tuple[int, int]]:
        spans = []
        for glob in globs:
            width = glob.count("/") + 1
            for start in range(len(parts) - width + 1):
                if fnmatchcase("/".join(parts[start : start + width]), glob):
                    spans.append((start, start + width))
        return spans

    def denied(self, rel: str) -> bool:
        parts = [p.lower() for p in rel.split("/") if p and p != "."]
        allowed = set(self._hits(self.allow, parts))
        return any(span not in allowed for span in self._hits(self.deny, parts))


class Redactor:
    def __init__(self, patterns: tuple[str, ...], replacement: str) -> None:
        self.patterns = [re.compile(p) for p in patterns]
        self.replacement = replacement

    def __call__(self, text: str) -> str:
        for pattern in self.patterns:
            text = pattern.sub(self.replacement, text)
        return text
