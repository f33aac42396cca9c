"""Structured git (`/git`): a fixed argument vector and environment, repository config that runs programs
neutralised, user arguments checked before they reach git, credentials only for `push` (see `hardening.py`)."""
