"""One error family. Library code raises these; only the CLIs turn them into one line and exit 2."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any


class EvidencedeskError(Exception):
    """Base of every error evidencedesk raises on purpose."""


class InputError(EvidencedeskError):
    """A file the user gave us is not what we expected.

    The message reads ``path:line: expected ..., found ...`` (line omitted when there is none).
    """

    def __init__(self, path: str | Path | None, message: str, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.detail = message
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        # made again from its own arguments (a forked child hands its error to the parent
        # pickled; the default pickles the message alone, which this constructor refuses)
        return type(self), (self.path, self.detail, self.line)


class DocumentError(InputError):
    """A knowledge-base document is malformed."""


class LabelsError(InputError):
    """A labels / questions / qrels file is malformed."""


class RunFileError(InputError):
    """A TREC run file is malformed."""


class ConfigError(InputError):
    """A policy, baseline, candidates or project file is malformed."""


class UnknownNameError(EvidencedeskError, ValueError):
    """A name (reranker, metric, searcher, ...) that is not one of the valid choices."""

    def __init__(
        self,
        kind: str,
        name: object,
        choices: list[str] | tuple[str, ...],
        suggestions: tuple[str, ...] = (),
    ):
        self.kind = kind
        self.name = name
        self.choices = tuple(choices)
        self.suggestions = suggestions  # the closest valid names, when the kind has them
        close = f"{self.hint} " if suggestions else ""
        super().__init__(
            f"unknown {kind} {name!r}; {close}expected one of: {', '.join(map(str, self.choices))}"
        )

    @property
    def hint(self) -> str:
        """ "did you mean a, b or c?" of the suggestions ("" without any)."""
        return _did_you_mean(self.suggestions)


def _did_you_mean(suggestions: tuple[str, ...] | list[str]) -> str:
    """ "did you mean a, b or c?" of `suggestions` ("" without any): every error's one wording."""
    if not suggestions:
        return ""
    *first, last = suggestions
    return f"did you mean {', '.join(first) + ' or ' if first else ''}{last}?"


class MissingExtraError(EvidencedeskError):
    """A component of an optional extra was named, but the extra's packages are not installed."""

    def __init__(self, what: str, extra: str, missing: tuple[str, ...] | list[str]):
        self.what = what
        self.extra = extra
        self.missing = tuple(missing)
        self.install = f"pip install 'evidencedesk[{extra}]'"
        super().__init__(
            f"{what} needs the optional extra {extra!r}, and {', '.join(self.missing)} "
            f"{'is' if len(self.missing) == 1 else 'are'} not installed; install it with: "
            f"{self.install}"
        )

    def not_run(self) -> str:
        """The one line a component that was not run shows instead of its numbers."""
        lacks = ", ".join(self.missing)
        return f"not run: install evidencedesk[{self.extra}] — {self.install} (missing: {lacks})"


class OutputError(InputError):
    """A file or folder evidencedesk was asked to write is not one it may write (or cannot be
    written): ``path: expected …, found …``. Nothing was written."""


class BuildLockedError(OutputError):
    """Another build holds the output folder's lock."""


class StreamError(EvidencedeskError):
    """Standard output (or error) could not be written: a full disk, an I/O error.

    A reader that went away (a closed pipe) is not one: that output is dropped.
    """

    def __init__(self, name: str, exc: OSError):
        self.name = name
        self.reason = exc.strerror or str(exc)
        code = errno.errorcode.get(exc.errno or 0)
        super().__init__(f"{name}: cannot write: {self.reason}{f' ({code})' if code else ''}")


class EnvironmentValueError(InputError):
    """An environment variable evidencedesk reads (SOURCE_DATE_EPOCH) holds a value it refuses."""


class OutputFolderError(OutputError):
    """``--out`` names a folder evidencedesk must not replace."""


class AuditError(InputError):
    """A site the audit cannot read (no results.json or claims.json)."""


class SiteFileError(InputError):
    """A built site's file that a command reads (summary.md, results.json for an export) is
    missing or unreadable."""


class RerankerError(EvidencedeskError, ValueError):
    """A reranker was configured or fed wrongly (bad max_words, a scorer returning junk)."""


class AnswersError(InputError):
    """``answers.jsonl`` is malformed."""


class ResultsFileError(InputError):
    """A results.json that cannot be read back as Results."""


class UsageError(EvidencedeskError):
    """A command-line argument (or a notebook argument the command line would refuse)."""


class CutoffError(EvidencedeskError, ValueError):
    """A metric name whose cut-off is beyond `metric_names.MAX_CUTOFF` (``recall@10**23``)."""


class ModelLoadError(EvidencedeskError):
    """An installed model's file its package cannot load (corrupt, cut short): names the package,
    the file and what to reinstall."""


class PackageLoadError(EvidencedeskError):
    """A package evidencedesk imports (pyarrow) that is missing or does not load (a
    broken install): names the package, what failed and what to reinstall."""

    def __init__(self, package: str, exc: BaseException):
        self.package = package
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        super().__init__(
            f"{package}: expected an installed package that imports, found one that does not "
            f"({type(exc).__name__}: {detail}); reinstall it: pip install --force-reinstall "
            f"{package}"
        )


class BuildTerminated(BaseException):
    """SIGTERM arrived during the build (raised from the signal handler)."""
