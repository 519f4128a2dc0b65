"""`extgen completion SHELL`: the shell code that completes extgen's commands and flags
(argcomplete), for bash, zsh and fish."""

from __future__ import annotations

import argparse

HELP = "print shell code that completes extgen's commands and flags (bash, zsh, fish)"
DESCRIPTION = """\
Print the code that makes your shell complete extgen's subcommands, flags and choices. Load it
in the shell's start-up file."""
EPILOG = """\
examples:
  bash:  eval "$(extgen completion bash)"         (in ~/.bashrc)
  zsh:   eval "$(extgen completion zsh)"          (in ~/.zshrc)
  fish:  extgen completion fish | source          (in ~/.config/fish/config.fish)"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to complete in")


def run(args: argparse.Namespace) -> int:
    import argcomplete

    print(argcomplete.shellcode(["extgen"], shell=args.shell))
    return 0
