"""Rule engines: one package per game, on the shared core in `engines.core`."""
