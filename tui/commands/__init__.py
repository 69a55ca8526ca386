"""One module per command-line verb: ``add_parser(subparsers)`` and ``run(args) -> int``."""
