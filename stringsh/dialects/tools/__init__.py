"""The JSON workspace tools (docs/json-tools.md): `stringsh tools`, JSON lines in and out."""
