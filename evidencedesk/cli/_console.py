"""What the build prints while it runs: progress lines, and output that survives a closed pipe.

`ConsoleProgress` has three modes. ``lines`` (stdout is not a terminal, e.g. CI or a pipe): one plain
line per finished stage with its seconds, as the tests and logs expect. ``tty``: one line that
is rewritten in place (``\\r``) with the current stage, its elapsed seconds once it took a second,
and its count: "questions judged / total" while the evaluation judges questions and "candidates
compared / total" while the gate stage compares them (`step`, told by
`evidencedesk.results._stages.Tally`), "pages written / total" while pages are rendered; it is
cleared before the summary. ``quiet``: nothing.

`PipeSafe` wraps a stream: when the reader goes away (``build | head -2``) the first
BrokenPipeError points the stream's file descriptor at /dev/null (the recipe of the Python
documentation, so the interpreter's final flush cannot fail either) and every later write is
dropped; the build itself carries on and writes the site. A stream that was closed before the
program started (``>&-``: Python gives None) is the `StreamError` ``stdout: cannot write: Bad
file descriptor (EBADF)`` at its first write, as a shell's own commands fail (``echo x >&-``);
a closed stderr drops every write instead. Any other OS error
(a full disk, an I/O error) is the `StreamError` ``stdout: cannot write: No space left on device
(ENOSPC)``, raised at that write and at every later one (the descriptor is pointed at /dev/null
too); a stream made with ``strict=False`` (stderr: there is nowhere left to say it) drops the
rest instead. A character the stream's encoding cannot hold (an ASCII-only terminal) is written
as a backslash escape instead of failing.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import threading
import time
from typing import Literal, TextIO

from evidencedesk.errors import StreamError

# how progress is shown: one line per stage, a redrawn terminal line, or nothing
_Mode = Literal["lines", "tty", "quiet"]
_TICK = 0.25  # seconds between redraws of the terminal line
_SLOW = 1.0  # a stage shows its running time on a terminal once it took this long


class PipeSafe(io.TextIOBase):
    """A text stream whose writes never raise BrokenPipeError (see the module)."""

    def __init__(self, stream: TextIO | None, name: str = "stdout", strict: bool = True) -> None:
        self.stream = stream
        self.name = name
        self.strict = strict
        self.broken = stream is None  # a descriptor closed before start: nobody reads
        self.failure: StreamError | None = None
        if stream is None and strict:  # nothing written can get out: an error, not a drop
            self.failure = StreamError(name, OSError(errno.EBADF, os.strerror(errno.EBADF)))

    def gone(self) -> None:
        """The reader went away: drop every later write (the file descriptor -> /dev/null)."""
        self.broken = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())  # type: ignore[union-attr]
            os.close(devnull)
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            pass  # not a real file (a StringIO in tests): dropping writes is enough

    def _failed(self, exc: OSError | ValueError) -> None:
        if isinstance(exc, BrokenPipeError) or not isinstance(exc, OSError):
            self.gone()  # the reader went away, or the stream was closed under us
            return
        self.gone()  # nothing more reaches it, and the interpreter's last flush cannot fail
        if self.strict:
            self.failure = StreamError(self.name, exc)
            raise self.failure from None

    def write(self, text: str) -> int:
        if self.failure is not None:
            raise self.failure
        if not self.broken:
            try:
                self._write(text)
            except (OSError, ValueError) as exc:
                self._failed(exc)
        return len(text)

    def _write(self, text: str) -> None:
        if self.stream is None:
            return
        try:
            self.stream.write(text)
        except UnicodeEncodeError:  # e.g. an ASCII-only terminal: escapes instead of a crash
            encoding = getattr(self.stream, "encoding", None) or "ascii"
            self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))

    def flush(self) -> None:
        if self.failure is not None:
            raise self.failure
        if not self.broken:
            try:
                self.stream.flush()  # type: ignore[union-attr]
            except (OSError, ValueError) as exc:
                self._failed(exc)

    def isatty(self) -> bool:
        try:
            return self.stream is not None and bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False


# what progress is written to: a caller's stream, or the build's pipe-safe wrapper of one
Stream = TextIO | PipeSafe


def mode_for(stream: Stream, quiet: bool) -> _Mode:
    """The progress mode: quiet when asked, a redrawn line on a terminal, else one line a stage."""
    if quiet:
        return "quiet"
    return "tty" if stream.isatty() else "lines"


class ConsoleProgress:
    """Called with each stage name as it starts; `step` counts judged questions, `page` rendered
    pages (a `evidencedesk.results._stages.Steps`)."""

    def __init__(self, stream: Stream, mode: _Mode = "lines") -> None:
        self.stream, self.mode = stream, mode
        self.stage: str | None = None
        self.started = self.first = time.perf_counter()
        self.pages = 0
        self.total_pages: int | None = None
        self.judged: tuple[int, int, str] | None = None  # done, of how many, of what
        self.drawn = ""
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.ticker: threading.Thread | None = None
        if mode == "tty":
            self.ticker = threading.Thread(target=self._tick, daemon=True)
            self.ticker.start()

    def __call__(self, stage: str) -> None:
        self.finish()
        with self.lock:
            self.stage, self.started = stage, time.perf_counter()
            self.pages, self.judged = 0, None

    def step(self, done: int, total: int, what: str | None = None) -> None:
        """`done` of the stage's `total` `what` (questions judged, the default; candidates
        compared): drawn by the ticker; the last count at once, so that a fast stage still shows
        its total."""
        if what is None:
            # imported here: the console is made before any command runs, and -V, --help and a
            # Ctrl-C during start-up must not wait for numpy and the results layer
            from evidencedesk.results._stages import JUDGED

            what = JUDGED
        with self.lock:
            self.judged = (done, total, what)
        if self.mode == "tty" and done >= total:
            self._draw()

    def expect_pages(self, total: int | None) -> None:
        self.total_pages = total

    def page(self, file: str) -> None:
        with self.lock:
            self.pages += 1
            last = self.total_pages is not None and self.pages >= self.total_pages
        if self.mode == "tty" and last:
            self._draw()

    def finish(self) -> None:
        with self.lock:
            stage, self.stage = self.stage, None
            seconds = time.perf_counter() - self.started
        if stage is not None and self.mode == "lines":
            print(f"  {stage:<24} {seconds:7.2f} s", file=self.stream, flush=True)

    def close(self) -> None:
        """Stop redrawing and clear the terminal line before the summary."""
        self.finish()
        self.stop.set()
        if self.ticker is not None:
            self.ticker.join()
            self.ticker = None
            with self.lock, contextlib.suppress(StreamError):  # the summary's write says so
                self.stream.write("\r\x1b[K")
                self.stream.flush()

    def total(self) -> float:
        return time.perf_counter() - self.first

    def line(self) -> str | None:
        """The terminal line for the running stage (None before a stage started)."""
        with self.lock:
            if self.stage is None:
                return None
            seconds = time.perf_counter() - self.started
            text = f"  {self.stage}"
            if self.judged is not None:
                done, total, what = self.judged
                text += f"  {what} {done} / {total}"
            if self.pages:
                of = f" / {self.total_pages}" if self.total_pages is not None else ""
                text += f"  pages written {self.pages}{of}"
            if seconds >= _SLOW:
                text += f"  {seconds:.0f} s"
            return text

    def _draw(self) -> None:
        text = self.line()
        with self.lock:
            if text is not None and text != self.drawn:  # a terminal line, redrawn on change only
                self.drawn = text
                self.stream.write(f"\r\x1b[K{text}")
                self.stream.flush()

    def _tick(self) -> None:
        while not self.stop.wait(_TICK):
            try:
                self._draw()
            except StreamError:  # the build's next line of output says so
                return
