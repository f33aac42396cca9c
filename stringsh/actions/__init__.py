"""Actions: `act.<id>` fences, their typed flags, CLI and HTTP execution, response templates and `$VAR`s."""
