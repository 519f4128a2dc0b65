"""One module per extgen subcommand: HELP, DESCRIPTION, EPILOG, add_arguments(), run()."""
