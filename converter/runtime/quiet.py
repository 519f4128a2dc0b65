"""Chatter kept off the user's terminal: Python warnings (numpy's RuntimeWarning on an overflowing
cast, pyopencl's CompilerWarning) and what a C library writes straight to the process's stderr
(an OpenCL compiler's "1 warning generated.") are collected while a step runs and logged at
DEBUG, so they show with --log_level DEBUG only. Errors are not affected: they still raise."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator

__all__ = ["native_stderr_logged", "warnings_logged"]

log = logging.getLogger("extgen")


@contextlib.contextmanager
def warnings_logged(what: str) -> Iterator[None]:
    """Python warnings raised in the block, each logged once at DEBUG as `what: ...`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # once per place, as Python would have printed them
        try:
            yield
        finally:
            for w in caught:
                log.debug("%s: %s: %s (%s:%d)", what, w.category.__name__, w.message,
                          os.path.basename(w.filename), w.lineno)


@contextlib.contextmanager
def native_stderr_logged(what: str) -> Iterator[None]:
    """File descriptor 2 sent to a temporary file while the block runs, and what landed there
    logged at DEBUG as `what: ...`. sys.stderr keeps writing to the terminal meanwhile (through a
    copy of the old descriptor), so a spinner or a log line of this process still shows."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (AttributeError, OSError, ValueError):  # no usable stderr: nothing to keep clean
        yield
        return
    stream, old_stream = os.fdopen(os.dup(saved), "w", buffering=1), sys.stderr
    # log handlers writing to the old sys.stderr (fd 2) write to the terminal's copy meanwhile
    handlers = [h for h in _handlers() if getattr(h, "stream", None) is old_stream]
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        sys.stderr = stream
        for handler in handlers:
            handler.setStream(stream)
        try:
            yield
        finally:
            for handler in handlers:
                handler.setStream(old_stream)
            sys.stderr = old_stream
            os.dup2(saved, 2)
            os.close(saved)
            stream.close()
            sink.seek(0)
            text = sink.read().decode(errors="replace").strip()
            if text:
                log.debug("%s: %s", what, text)


def _handlers() -> list[logging.StreamHandler]:
    """The stream handlers of the root logger and of every logger made so far."""
    loggers = [logging.getLogger(), *(v for v in logging.Logger.manager.loggerDict.values()
                                      if isinstance(v, logging.Logger))]
    return [h for lg in loggers for h in lg.handlers if isinstance(h, logging.StreamHandler)]
