"""A hook for long library steps: the library names them, the application shows them.

By default nothing is shown; the extgen CLI installs its terminal display at start-up
(set_activity(extgen.progress.activity)).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager

__all__ = ["Activity", "activity", "set_activity"]

Activity = Callable[[str], AbstractContextManager[None]]


def _silent(label: str) -> AbstractContextManager[None]:
    return contextlib.nullcontext()


_display: Activity = _silent


def set_activity(display: Activity | None) -> Activity:
    """Show each later activity(label) as display(label); None restores the silent default.
    Returns the display it replaces."""
    global _display
    previous, _display = _display, display or _silent
    return previous


def activity(label: str) -> AbstractContextManager[None]:
    """A context manager around one long step, shown by the installed display while it runs."""
    return _display(label)
