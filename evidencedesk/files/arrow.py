"""pyarrow, imported in one place: a broken install is one line naming what to reinstall
(`errors.PackageLoadError`), whichever module needs it first."""

from __future__ import annotations

from evidencedesk.errors import PackageLoadError

try:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv
except Exception as exc:  # a broken install: one line naming what to reinstall
    raise PackageLoadError("pyarrow", exc) from None

__all__ = ["pa", "pacsv", "pc"]
