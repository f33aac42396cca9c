"""The Redactor: each built-in pattern masks its secret, ordinary text stays as it is, lines are kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.workspace.engine import Workspace
from stringsh.workspace.policy import Policy, Secrets
from stringsh.workspace.redact import Redactor

MASK = "***REDACTED***"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Ys\n"
    "q1ZMpWb5rR3Dz3k1pN0a9e4Qx7jV8b2mZ9w==\n"
    "-----END RSA PRIVATE KEY-----"
)

SECRETS = {
    "github classic": "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8",
    "github oauth": "gho_" + "a" * 36,
    "github user": "ghu_" + "Z9" * 18,
    "github server": "ghs_" + "0" * 36,
    "github refresh": "ghr_" + "x1" * 18,
    "github fine-grained": "github_pat_11ABCDEFG0" + "abcdefghij" * 6,
    "gitlab": "glpat-" + "xY3_zW9-aB7cD5eF1gH2",
    "slack bot": "xoxb-1234567890-0987654321-AbCdEfGhIjKl",
    "slack user": "xoxp-12345678901-abcdef",
    "aws akia": "AKIAIOSFODNN7EXAMPLE",
    "aws asia": "ASIAY34FZKBOKMUTVV7A",
    "openai": "sk-" + "Ab3" * 16,
    "openai project": "sk-proj-" + "Q9w8E7r6T5y4U3i2O1p0" * 2,
    "google": "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "pem": PEM,
    "openssh key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
}


@pytest.fixture
def redact() -> Redactor:
    return Redactor((), MASK)


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_builtin_pattern_masks_its_secret(redact: Redactor, name: str) -> None:
    secret = SECRETS[name]
    text = f"before {secret} after\n"
    assert redact(text) == f"before {MASK} after\n"
    lines = secret.count("\n") + 1
    assert redact(text, keep_lines=True) == "before " + "\n".join([MASK] * lines) + " after\n"
    assert redact.finds_secret(text)


@pytest.mark.parametrize(
    ("header", "shown"),
    [
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", "Authorization: Bearer " + MASK),
        ("authorization: basic dXNlcjpwYXNz", "authorization: basic " + MASK),
        ('curl -H "Authorization: Bearer abc123def456"', 'curl -H "Authorization: Bearer ' + MASK + '"'),
        ('{"Authorization": "Bearer abc123def456"}', '{"Authorization": "Bearer ' + MASK + '"}'),
        ("AUTHORIZATION: Bearer abc123def456", "AUTHORIZATION: Bearer " + MASK),
    ],
)
def test_authorization_header_values_are_masked_not_the_header(redact: Redactor, header: str, shown: str) -> None:
    assert redact(header) == shown


ORDINARY = [
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "id = 123e4567-e89b-12d3-a456-426614174000",
    'PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk")',
    "Authorization: Bearer $API_TOKEN",
    "Authorization: Bearer {token}",
    "see the task-runner-configuration-file and disk-scheduler-priority-settings",
    "xghp_" + "b" * 36,
    "the word ghost and high thought",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "MASK it: ***REDACTED*** is just text here",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_masked(redact: Redactor, text: str) -> None:
    assert redact(text) == text
    assert not redact.finds_secret(text)


def test_multiline_secret_keeps_line_count_and_crlf(redact: Redactor) -> None:
    text = "a\r\n" + PEM.replace("\n", "\r\n") + "\r\nb\r\n"
    masked = redact(text, keep_lines=True)
    assert masked == "a\r\n" + "\r\n".join([MASK] * 4) + "\r\nb\r\n"
    assert masked.count("\n") == text.count("\n")


def test_a_key_cut_before_its_end_is_masked_to_the_end(redact: Redactor) -> None:
    cut = "out:\n" + PEM.rsplit("\n", 2)[0]  # BEGIN and a line, no END (a shell output cap, a budget)
    assert redact(cut) == f"out:\n{MASK}"
    assert redact(cut, keep_lines=True) == "out:\n" + "\n".join([MASK] * 2)


def test_policy_patterns_and_replacement() -> None:
    redact = Redactor((r"token-[0-9a-f]{8}", "x*"), "[hidden]")
    assert redact("a token-deadbeef b ghp_" + "c" * 36) == "a [hidden] b [hidden]"
    assert redact("plain") == "plain"  # a pattern matching the empty string masks nothing


def test_compiled_on_first_use_only(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    try:
        assert workspace._redactor is None  # start-up compiles nothing
        redactor = workspace.redactor
        assert redactor._builtins == {} and redactor._policy is None
        assert workspace.redact("plain text") == "plain text"  # a text with no built-in's literal compiles none,
        assert redactor._builtins == {} and redactor._policy is None  # nor, the policy having none, a policy pattern
        assert workspace.redact("x ghp_" + "d" * 36) == "x " + MASK
        assert [builtin.literals for builtin in redactor._builtins] == [("gh",)] and workspace.redactor is redactor
    finally:
        workspace.close()


def test_workspace_uses_the_policys_patterns_and_replacement(tmp_path: Path) -> None:
    policy = Policy.default(tmp_path)
    policy = policy._replace(secrets=Secrets(redact_regexes=("internal-[0-9]{6}",), replacement="<secret>"))
    workspace = Workspace(tmp_path, policy)
    try:
        assert workspace.redact("internal-123456 AKIAIOSFODNN7EXAMPLE") == "<secret> <secret>"
        assert workspace.redact_lines("internal-123456\n" + PEM) == "<secret>\n" + "\n".join(["<secret>"] * 4)
    finally:
        workspace.close()


@pytest.mark.parametrize("text", [
    "Authorization: Bearer abcdEFGH1234",
    "xAuthorization: Bearer abcdEFGH1234 and authorization=token zzzz9999\r\nAUTHORIZATION: basic QWxhZGRpbjpvcGVu",
    "aUTHORIZATION: Bearer abcdEFGH1234 uthorization: Bearer abcd1234 Authorization:Authorization: Bearer x1y2z3w4",
    "header = {'Authorization': 'Bearer abc.def~ghi'}\n" * 3 + "Authorization:\n  Bearer multi-line-value",
])
def test_a_pattern_tried_only_at_its_literals_masks_what_a_full_scan_masks(text: str) -> None:
    """`lead`: the Authorization pattern is tried only where its literal occurs; the result is the full `sub`'s."""
    import re

    from stringsh.workspace.redact import BUILTINS, _sub_at_literals

    builtin = next(b for b in BUILTINS if b.lead >= 0)
    pattern, redactor = re.compile(builtin.pattern), Redactor([], "***")
    for keep_lines in (False, True):
        mask = redactor._masker(builtin, keep_lines)
        assert _sub_at_literals(pattern, builtin, mask, text) == pattern.sub(mask, text)
    assert redactor(text) != text
