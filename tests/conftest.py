from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from evidencedesk.chunking import Chunk

# No per-example time limit: a deadline is a timed test, and this shared 2-core machine (and CI)
# can be slow for reasons that have nothing to do with the code under test.
settings.register_profile("evidencedesk", deadline=None)
settings.load_profile("evidencedesk")


def make_chunk(cid: str, text: str, title: str = "T", **meta: object) -> Chunk:
    doc_id = cid.split(":")[0]
    return Chunk(id=cid, doc_id=doc_id, title=title, text=text, **meta)  # type: ignore[arg-type]


def write_doc(folder: Path, name: str, header: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"---\n{header}\n---\n{body}\n", encoding="utf-8")
    return path


@pytest.fixture
def tiny_chunks() -> list[Chunk]:
    return [
        make_chunk("a:c0", "Bikes may be returned within 30 days for a refund.", "Returns"),
        make_chunk(
            "b:c0", "Recall notice: the derailleur batch RD2-24 must be replaced.", "Recall"
        ),
        make_chunk("c:c0", "Express shipping takes 2 business days.", "Shipping"),
        make_chunk("d:c0", "বাইক ফেরত দেওয়ার নিয়ম ৩০ দিন।", "ফেরত", language="bn"),
        make_chunk(
            "e:c0",
            "Internal note: staff may refund after 30 days.",
            "Staff",
            visibility="restricted",
        ),
    ]


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo built once for the whole session (read it, never write into it)."""
    import io

    from evidencedesk import cli

    out = tmp_path_factory.mktemp("demo-session") / "site"
    code = cli.main(["build", "--out", str(out), "-q"], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    return out


@pytest.fixture(scope="session")
def demo_results(demo_site: Path):  # type: ignore[no-untyped-def]
    from evidencedesk.results.jsonio import load

    return load(demo_site / "results.json")
