"""String Commands, one module per family; each registers itself with `registry.command`."""
