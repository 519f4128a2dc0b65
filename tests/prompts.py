"""Drive extgen's real prompts in-process: prompt_toolkit reads the keys from a pipe, and
standard input looks like the terminal the prompts insist on."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from unittest import mock

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@contextlib.contextmanager
def typed(keys: str) -> Iterator[None]:
    """Run the block with keys typed at the prompts; out of keys is end of input, so a wrong
    key sequence fails instead of hanging."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()), \
            mock.patch.object(sys, "stdin", _Terminal()):
        pipe.send_text(keys)
        pipe.close()
        yield
