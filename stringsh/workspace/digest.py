"""SHA-256 of the short strings every start hashes (the state folder's name, the audit chain's records), without
importing hashlib: its OpenSSL bindings cost a few milliseconds of each `stringsh -c`, several times what the
builtin module does. The digests are the same bytes either way; file contents are hashed with OpenSSL's, which
is faster on big inputs (atomic.sha256)."""

from __future__ import annotations

try:
    from _sha2 import sha256  # Python 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:  # a build without the builtin hashes
        from hashlib import sha256

__all__ = ["sha256"]
