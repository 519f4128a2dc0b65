"""Progress display for long work: a rich status line on a terminal, log lines otherwise.

The CLI installs `activity` as the library's display (converter.progress.set_activity) and
hands a `phases` step to the conversion pipeline."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator

__all__ = ["activity", "phases"]

log = logging.getLogger("extgen")


def _mo_bar(names: tuple[str, ...], stream: bool) -> Callable[[str], None]:
    """MO's --progress display on stdout: one bar redrawn in place, or (--stream_output) a
    new line per step."""
    done = {"n": 0}

    def step(name: str) -> None:
        done["n"] += 1
        width = 20 * done["n"] // len(names)
        end = "\n" if stream or done["n"] == len(names) else "\r"
        sys.stdout.write(f"Progress: [{'.' * width:20}] {100 * done['n'] / len(names):6.2f}% "
                         f"done ({name}){end}")
        sys.stdout.flush()

    return step


@contextlib.contextmanager
def phases(title: str, names: tuple[str, ...],
           mode: str | None = None) -> Iterator[Callable[[str], None]]:
    """Yield step(name): marks the start of each named phase. mode 'line' or 'stream' is MO's
    --progress display (--stream_output), on stdout whatever it is."""
    if mode is not None:
        yield _mo_bar(names, mode == "stream")
        return
    if not sys.stderr.isatty():
        yield lambda name: log.info("%s: %s", title, name)
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[phase]}"),
        TimeElapsedColumn(), transient=True, console=None,
    ) as progress:
        task = progress.add_task(title, total=len(names), phase="")
        done = {"n": 0}

        def step(name: str) -> None:
            progress.update(task, completed=done["n"], phase=name)
            done["n"] += 1

        yield step
        progress.update(task, completed=len(names))


@contextlib.contextmanager
def activity(text: str) -> Iterator[None]:
    """A spinner with text on a terminal (a log line otherwise) while one long step runs."""
    if not sys.stderr.isatty():
        log.info(text)
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(text):
        yield
