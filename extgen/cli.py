"""The `extgen` command: subcommands, logging, and the one place errors are turned into exit
codes."""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from converter.progress import set_activity
from extgen import progress
from extgen.commands import check as check_cmd
from extgen.commands import completion as completion_cmd
from extgen.commands import convert as convert_cmd
from extgen.commands import doctor as doctor_cmd
from extgen.commands import new as new_cmd
from extgen.commands import run as run_cmd
from extgen.commands import schema as schema_cmd
from extgen.commands import test as test_cmd
from extgen.commands import update as update_cmd
from extgen.errors import ExtgenError

__all__ = ["main"]

_COMMANDS = {
    "check": check_cmd, "new": new_cmd, "update": update_cmd, "convert": convert_cmd,
    "run": run_cmd, "test": test_cmd, "schema": schema_cmd, "doctor": doctor_cmd,
    "completion": completion_cmd,
}
LOG_LEVELS = ("CRITICAL", "ERROR", "WARN", "WARNING", "INFO", "DEBUG", "NOTSET")


_ALIASES = {"--extension": "--extensions", "--extensions": "--extension"}


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, exit status 2, takes no abbreviations
    (`--scale` must not silently mean `--scale_values`) and knows every long option in both
    spellings (`--input_model` and `--input-model`; `--extension` and `--extensions`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {_with_guess(message)} "
                         f"(see '{self.prog} --help')\n")
        raise SystemExit(2)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if args is not None:
            args = list(args)
            end = args.index("--") if "--" in args else len(args)  # after --: no options
            args = [self._spelled(arg) for arg in args[:end]] + args[end:]
        return super().parse_known_args(args, namespace)

    def unrecognized(self, extra: Sequence[str]) -> None:
        """Report arguments this parser does not take, a misspelled option with the one it
        most likely meant (`--input_modle (did you mean --input_model?)`)."""
        words = []
        for arg in extra:
            guess = self._close_option(arg.partition("=")[0]) if arg.startswith("--") else None
            words.append(f"{arg} (did you mean {guess}?)" if guess else arg)
        self.error(f"unrecognized arguments: {' '.join(words)}")

    def _close_option(self, name: str) -> str | None:
        """The long option closest to name, in either spelling (difflib), or None."""
        declared = {o.replace("-", "_"): o for o in self._option_string_actions
                    if o.startswith("--")}
        found = difflib.get_close_matches(name.replace("-", "_"), declared, n=1)
        return declared[found[0]] if found else None

    def _spelled(self, arg: str) -> str:
        """arg with its option name in the spelling this parser declares, if it has one."""
        if not arg.startswith("--") or arg == "--":
            return arg
        name, eq, value = arg.partition("=")
        known = self._option_string_actions
        if name in known:
            return arg
        words = name[2:]
        for other in ("--" + words.replace("-", "_"), "--" + words.replace("_", "-"),
                      _ALIASES.get(name, "")):
            if other in known:
                return other + eq + value
        return arg


def _with_guess(message: str) -> str:
    """argparse's `invalid choice: 'conver' (choose from ...)` with the closest choice."""
    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if not found:
        return message
    choices = re.findall(r"'([^']*)'", found[2]) or found[2].split(", ")
    guess = difflib.get_close_matches(found[1], choices, n=1)
    return f"{message}; did you mean '{guess[0]}'?" if guess else message


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Each option's spellings listed once with its value (`--input_model, -m FILE`), as
    Python 3.13's argparse does, on every Python: --help reads the same everywhere."""

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        value = self._format_args(action, self._get_default_metavar_for_optional(action))
        return f"{', '.join(action.option_strings)} {value}"


class _ShowVersion(argparse.Action):
    """--version, with the version looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show extgen's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from converter.version import installed_version

        print(f"extgen {installed_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="extgen",
        description="Add a custom operation to an OpenVINO deployment: scaffold extensions, "
        "convert models to OpenVINO IR v11, run them.",
        epilog="Example: extgen convert --input_model model.onnx --output_dir ir/",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action=_ShowVersion)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module in _COMMANDS.items():
        cmd = sub.add_parser(
            name, help=module.HELP, description=module.DESCRIPTION, epilog=module.EPILOG,
            formatter_class=_HelpFormatter,
        )
        module.add_arguments(cmd)
        cmd.add_argument("--version", action=_ShowVersion)
        cmd.add_argument(
            "--log_level", default="WARNING", choices=LOG_LEVELS, type=str.upper,
            help="logging level; DEBUG also shows tracebacks of errors (default: WARNING)",
        )
        cmd.set_defaults(run=module.run)
    return parser


def _setup_logging(level: str) -> None:
    fmt = "[ %(levelname)s ] %(message)s"
    if level == "DEBUG":
        fmt = "[ %(levelname)s ] %(asctime)s %(module)s:%(lineno)d %(message)s"
    name = {"WARN": "WARNING"}.get(level, level)
    logging.basicConfig(level=getattr(logging, name), format=fmt, stream=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions (extgen completion)
        import argcomplete

        argcomplete.autocomplete(parser)
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) == 1 and argv[0].endswith(".json"):  # the original extgen's silent mode
        argv = ["new", "--config", argv[0]]
    args, extra = parser.parse_known_args(argv)
    if extra:  # reported by the subcommand's parser, whose --help lists what it takes
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        target = commands.choices.get(getattr(args, "command", None) or "", parser)
        target.unrecognized(extra)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    if getattr(args, "verbose", False) and args.log_level == "WARNING":  # ovc's --verbose
        args.log_level = "INFO"
    _setup_logging(args.log_level)
    debug = args.log_level == "DEBUG"
    previous = set_activity(progress.activity)
    try:
        return int(args.run(args) or 0)
    except ExtgenError as err:
        if debug:
            logging.exception("details")
        sys.stderr.write(f"[ ERROR ] {err}\n")
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("[ ERROR ] interrupted\n")
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as SIGPIPE would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as err:  # a bug: one line, traceback with --log_level DEBUG
        if debug:
            logging.exception("internal error")
        sys.stderr.write(
            f"[ ERROR ] internal error: {type(err).__name__}: {err} "
            "(rerun with --log_level DEBUG for the traceback, and please report it)\n"
        )
        return 1
    finally:
        set_activity(previous)


if __name__ == "__main__":
    sys.exit(main())
