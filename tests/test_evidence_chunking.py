"""The evidence checks chunk the extras' documents (dups, the update, the tenants' own) as the
project chunks its own (`[documents] chunking`): a document-chunked project's exact copy in the
dups folder is one chunk that merges with the document, where cut by paragraph it matched no
chunk. An update must carry an id of its own, named in one line when it does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.errors import DocumentError
from evidencedesk.results._evidence import _duplicates, _update_chunks
from evidencedesk.retrieval.catalog import Catalog, _load_documents
from evidencedesk.retrieval.labels import Label

TEXT = (
    "---\nid: {id}\ntitle: Returns\nversion: {version}\nstatus: current\nvisibility: public\n"
    "language: en\n---\n# Returns\n\nBikes may be returned within {days} days of purchase.\n\n"
    "Bring the receipt or the order number.\n"
)


def _write(folder: Path, name: str, **fields: object) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(TEXT.format(**{"version": 1, "days": 30, **fields}), "utf-8")
    return path


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    _write(tmp_path / "kb", "returns", id="returns")
    _write(tmp_path / "kb", "shipping", id="shipping", days=4)
    return Catalog.from_documents(_load_documents([tmp_path / "kb"]), "document")


@pytest.mark.parametrize(("chunking", "merged"), [("document", [("returns:c0", ("faq:c0",))]),
                                                  ("paragraph", [])])  # fmt: skip
def test_a_copy_in_the_dups_folder_is_chunked_as_the_project_chunks(
    tmp_path: Path, catalog: Catalog, chunking: str, merged: list[tuple[str, tuple[str, ...]]]
) -> None:
    _write(tmp_path / "dups", "faq", id="faq")
    label = Label("q1", "within how many days may bikes be returned", (), True, {"returns:c0": 2})
    _, merges, _ = _duplicates(catalog, [label], tmp_path / "dups", chunking)
    assert [(m.kept, m.merged) for m in merges] == merged


def test_an_update_is_a_version_under_an_id_of_its_own(tmp_path: Path, catalog: Catalog) -> None:
    newer = _write(tmp_path / "updates", "returns-v2", id="returns-v2", version=2, days=45)
    chunks = _update_chunks(catalog, newer, "document")
    assert [(c.id, c.series) for c in chunks] == [("returns-v2:c0", "returns")]
    same = _write(tmp_path / "updates", "returns", id="returns", version=2, days=45)
    with pytest.raises(DocumentError) as err:
        _update_chunks(catalog, same, "document")
    assert str(err.value) == (
        f"{same}: expected a newer version under an id of its own (such as 'returns-v2': the id "
        "without '-v<N>' names the document it replaces), found 'returns', a document the "
        "project already holds"
    )
