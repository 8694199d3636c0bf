"""Write a large site's data files in forked processes while the pages render.

Above the page limit the render is three independent pieces of CPU work of a few seconds each
at 50,000 questions: results.json with its per-question part (`jsonio.site_files`: the JSON and
its gzip), the data/ exports (`exports.site_exports`: the CSV and the qrels, gzip-compressed) and
the ~1,000 pages. `Background(job)` runs a job in a child made with ``os.fork`` (the child
shares the model copy-on-write, writes its files into the site's work folder and exits);
`Background.wait()` waits for it and raises, in the parent, the exception the job raised there
(an OSError keeps its errno and file name, so the CLI's one-line message is the same). Each file
is written by exactly one process, so the bytes are those of a sequential build. Where ``os.fork``
is missing (Windows) the job runs at once, in the caller.

A child never returns into the caller's code: whatever happens it leaves through ``os._exit``,
so the caller's clean-up (the atomic output's work folder) runs only in the parent. `stop()`
ends a child still running when the parent fails first.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable

from evidencedesk.errors import EvidencedeskError


class Background:
    """`job()` in a forked child (or at once where there is no fork)."""

    def __init__(self, job: Callable[[], object]) -> None:
        self.pid: int | None = None
        self._read = -1
        if not hasattr(os, "fork"):
            job()
            return
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run the job, report its exception, never return
            os.close(read)
            status = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # the parent reports interrupts
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                job()
            except BaseException as exc:  # handed to the parent, raised there
                status = 1
                try:
                    os.write(write, pickle.dumps(exc))
                except Exception:  # an exception that does not pickle: say what it was
                    os.write(write, pickle.dumps(EvidencedeskError(f"{type(exc).__name__}: {exc}")))
            finally:
                os._exit(status)
        os.close(write)
        self.pid, self._read = pid, read

    def wait(self) -> None:
        """Wait for the child; raise what its job raised."""
        if self.pid is None:
            return
        chunks = []
        while chunk := os.read(self._read, 1 << 16):
            chunks.append(chunk)
        os.close(self._read)
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if chunks:
            try:
                exc = pickle.loads(b"".join(chunks))  # noqa: S301 - our own child's exception
            except Exception:  # an exception class whose arguments do not unpickle
                exc = EvidencedeskError("writing the site's data files failed")
            raise exc
        if os.waitstatus_to_exitcode(status) != 0:
            raise EvidencedeskError(
                f"writing the site's data files stopped (status {os.waitstatus_to_exitcode(status)})"
            )

    def stop(self) -> None:
        """End the child if it still runs (the parent failed first)."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self._read)
        self.pid = None
