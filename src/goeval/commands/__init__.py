"""Subcommands of the ``goeval`` command line (see :mod:`goeval.cli`)."""
