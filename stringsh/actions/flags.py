"""POSIX-style flags for `/act.<id>`, parsed and bound to an action's fields the way String does it.

Quotes (`'` or `"`) group words; `--k v`, `--k=v`, `-x v`; a flag without a value is `"true"`; `--` ends
options; leftover words fill unfilled fields in declaration order. Values are data: `$NAME` is refused (only
action definitions may use persistent variables), `{var}` comes from the session, `@id` names a shortcut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from stringsh.actions.model import Action
from stringsh.actions.schema import usage
from stringsh.errors import StringError
from stringsh.protocol.request import substitute
from stringsh.suggest import did_you_mean, with_suggestion
from stringsh.workspace import builtin_redactor as builtin

DOLLAR = re.compile(r"\$[A-Za-z_]\w*")
SESSION_VAR = re.compile(r"\{([A-Za-z_]\w*)\}")
SHORTCUT_VALUE = re.compile(r"^@[A-Za-z_][\w-]*(?:\.[A-Za-z0-9_-]+)?$")
NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
BOOLEANS = {"true", "false", "yes", "no", "1", "0", "on", "off"}
DOLLAR_REFUSED = (
    "$var cannot be used in command arguments. Use {var} for session variables, $var in action definitions."
)


@dataclass
class ParsedFlags:
    flags: dict[str, str] = field(default_factory=dict)
    rest: list[str] = field(default_factory=list)
    bare: set[str] = field(default_factory=set)
    help: bool = False


def tokenize(text: str) -> list[str]:
    """Split on spaces and tabs; quotes group and are removed; an unclosed quote runs to the end."""
    tokens: list[str] = []
    current: list[str] = []
    quote: str | None = None
    started = False
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
            else:
                current.append(ch)
        elif ch in "\"'":
            quote, started = ch, True
        elif ch in " \t":
            if current or started:
                tokens.append("".join(current))
            current, started = [], False
        else:
            current.append(ch)
    if current or started:
        tokens.append("".join(current))
    return tokens


def _is_flag(token: str) -> bool:
    return token.startswith("--") or (len(token) == 2 and token.startswith("-"))


def parse_flags(text: str, short_to_long: Mapping[str, str] | None = None) -> ParsedFlags:
    tokens = tokenize(text)
    parsed = ParsedFlags(help="--help" in tokens or "-h" in tokens)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--":
            parsed.rest.extend(tokens[index:])
            break
        if token.startswith("--") and len(token) > 2:
            key, eq, value = token[2:].partition("=")
            if eq and key:
                parsed.flags[key] = value
                continue
            key = token[2:]
        elif len(token) == 2 and token.startswith("-"):
            key = (short_to_long or {}).get(token[1], token[1])
        else:
            parsed.rest.append(token)
            continue
        if index < len(tokens) and not _is_flag(tokens[index]):
            parsed.flags[key] = tokens[index]
            index += 1
        else:
            parsed.flags[key] = "true"
            parsed.bare.add(key)
    return parsed


def _check_type(action: Action, name: str, value: str) -> None:
    spec = action.field_named(name)
    if spec is None:
        return
    if (spec.type == "number" and not NUMBER.match(value.strip())) or (
        spec.type == "boolean" and value.lower() not in BOOLEANS
    ):
        raise StringError(
            "INVALID_PAYLOAD",
            f'Flag --{name} expects a {spec.type}, got "{value}".\nUsage: /act.{action.id} --{name} <{spec.type}>',
        )


def bind(
    action: Action,
    parsed: ParsedFlags,
    variables: Mapping[str, str],
    resolve_shortcut: Callable[[str], str | None],
    shortcut_ids: Callable[[], list[str]],
    read_bytes: Callable[[str], bytes] | None = None,
) -> tuple[dict[str, str], set[str]]:
    """Turn parsed flags into the payload; returns (payload, names filled from defaults).

    `--<field>-file path` gives a field the text of a workspace file (read with `read_bytes`, so confinement and
    the secret rules apply), taken as it is: no `{var}`, `$NAME` or `@id` processing inside it.
    Author defaults are filled but not yet `$VAR`-resolved: the caller does that with its env store.
    """
    flags = dict(parsed.flags)
    files = file_flags(action, flags, parsed.bare)
    if parsed.rest and action.fields:
        unfilled = [f for f in action.fields if f.name not in flags and f.name not in files]
        if len(parsed.rest) > len(unfilled):
            names = ", ".join(f.name for f in action.fields)
            raise StringError(
                "INVALID_PAYLOAD",
                f"Too many positional arguments for /act.{action.id}.\n"
                f"Expected up to {len(unfilled)} positional value{'' if len(unfilled) == 1 else 's'}"
                f" (field{'' if len(action.fields) == 1 else 's'}: {names}), got {len(parsed.rest)}.\n"
                "Use -- to pass values that start with '-'.",
            )
        for spec, value in zip(unfilled, parsed.rest, strict=False):
            flags[spec.name] = value
    for key in parsed.bare:
        spec = action.field_named(key)
        if spec is not None and spec.type != "boolean" and flags.get(key) == "true":
            raise StringError(
                "INVALID_PAYLOAD",
                f"Flag --{key} requires a value (declared type: {spec.type}).\n"
                f"Usage: /act.{action.id} --{key} <{spec.type}>",
            )
    payload: dict[str, str] = {}
    for key, value in flags.items():
        if DOLLAR.search(value):
            raise StringError("INVALID_PAYLOAD", DOLLAR_REFUSED)
        value = substitute(value, variables)  # `{{name}}` stays a literal `{name}`, as in every argument
        if SHORTCUT_VALUE.match(value):
            target = resolve_shortcut(value[1:])
            if target is None:
                ids = shortcut_ids()
                listing = (
                    f"Available: {', '.join('@' + i for i in ids[:12])}{', ...' if len(ids) > 12 else ''}"
                    if ids
                    else "(no shortcuts on this page)"
                )
                raise StringError("NOT_FOUND", f"Unknown shortcut: {value}",
                                  with_suggestion(listing, did_you_mean(value[1:], ids, "@{}", builtin())))
            value = target
        _check_type(action, key, value)
        payload[key] = value
    for name, path in files.items():
        if DOLLAR.search(path):
            raise StringError("INVALID_PAYLOAD", DOLLAR_REFUSED)
        value = read_text(substitute(path, variables), name, read_bytes)
        _check_type(action, name, value)
        payload[name] = value
    defaulted = set()
    for spec in action.fields:
        if spec.default is not None and spec.name not in payload:
            payload[spec.name] = spec.default
            defaulted.add(spec.name)
    return payload, defaulted


def file_flags(action: Action, flags: dict[str, str], bare: set[str]) -> dict[str, str]:
    """Take the `--<field>-file path` flags out of `flags`: field -> path. A flag is one only when `<field>` is
    declared and `<field>-file` is not itself a field; giving the field both ways is refused."""
    files: dict[str, str] = {}
    for key in list(flags):
        if not key.endswith("-file") or action.field_named(key) is not None or action.field_named(key[:-5]) is None:
            continue
        name, path = key[:-5], flags.pop(key)
        if key in bare:
            raise StringError(
                "INVALID_PAYLOAD", f"Flag --{key} requires a path.\nUsage: /act.{action.id} --{key} <path>"
            )
        if name in flags:
            raise StringError(
                "INVALID_PAYLOAD", f"Give either --{name} or --{key}, not both.",
                f"--{key} <path> sends the file's text as --{name}.",
            )
        files[name] = path
    return files


#: String's limit on a `--<field>-file` value, in bytes.
FIELD_FILE_LIMIT = 1048576
#: Failures to read a `--<field>-file` that name the path as the value's: "cannot read <path>".
UNREADABLE = frozenset({"NOT_FOUND", "NOT_A_FILE", "INVALID_TARGET", "IO_ERROR", "NOT_PERMITTED"})


def read_text(path: str, name: str, read_bytes: Callable[[str], bytes] | None) -> str:
    """A `--<field>-file` value: the file's UTF-8 text, exactly as stored."""
    if read_bytes is None:
        raise StringError("INVALID_PAYLOAD", f"--{name}-file cannot be used here.")
    try:
        data = read_bytes(path)
    except StringError as exc:
        if exc.code not in UNREADABLE:
            raise  # a refusal of the path itself (confinement, secrets) reads as it does everywhere
        own = f"--{name}-file takes the path of a workspace file (/ls shows them)."
        if exc.code == "NOT_FOUND":  # its own next step, after the closest name when there is one
            meant = exc.hint.split("? ", 1)[0] + "?" if exc.hint and exc.hint.startswith("Did you mean ") else None
            hint = with_suggestion(own, meant)
        else:
            hint = exc.hint or own
        raise StringError(exc.code, f"--{name}-file cannot read {path}: {exc.message}", hint) from None
    if len(data) > FIELD_FILE_LIMIT:
        raise StringError(
            "TOO_LARGE",
            f"--{name}-file {path} is too large: {len(data)} bytes (limit {FIELD_FILE_LIMIT}); nothing was sent.",
            f"Send a smaller file, or a {{{name}|base64file}} body template.",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StringError(
            "BINARY_FILE", f"--{name}-file {path}: not UTF-8 text; nothing was sent.",
            "Give a text file, or a {name|base64file} body template for bytes.",
        ) from None


def missing_required(action: Action, payload: Mapping[str, str], variables: Mapping[str, str]) -> None:
    """Refuse to run with required fields unset (a session variable of the same name fills a `{name}`)."""
    missing = [f.name for f in action.fields if f.required and f.name not in payload and f.name not in variables]
    if missing:
        raise StringError("INVALID_PAYLOAD", f"Missing required flags: {', '.join(missing)}\n\nUsage:\n{usage(action)}")


def needs_schema_only(action: Action, flag_text: str) -> bool:
    """No flags at all and a required field without a default: show the schema instead of running."""
    return not flag_text.strip() and any(f.required and f.default is None for f in action.fields)
