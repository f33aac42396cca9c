"""The String wire: request parsing, reply text and framing. Knows nothing of commands or the engine."""
