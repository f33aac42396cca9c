"""The workspace engine: confined paths, byte-faithful text, atomic writes, change journal."""
