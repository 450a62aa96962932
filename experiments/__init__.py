"""The command line, experiment files and the benchmark."""
