from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.chunking import _parse_document, chunk_document, load_document
from evidencedesk.errors import DocumentError, UnknownNameError
from evidencedesk.retrieval.catalog import Catalog, Scope, load_catalog
from tests.conftest import write_doc

HEADER = "id: kc-x\ntitle: X page\nversion: 2\nstatus: current\nvisibility: public\nlanguage: en"


def test_heading_travels_with_its_paragraph_and_a_table_stays_whole() -> None:
    body = "# Title\n\nFirst para.\n\n## Sizes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast para."
    doc = _parse_document(f"---\n{HEADER}\n---\n{body}")
    chunks = chunk_document(doc)
    assert [c.id for c in chunks] == ["kc-x:c0", "kc-x:c1", "kc-x:c2"]
    assert chunks[0].text == "# Title\nFirst para."
    assert chunks[1].text == "## Sizes\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert chunks[2].text == "Last para."
    assert (chunks[1].version, chunks[1].title, chunks[1].status) == (2, "X page", "current")
    assert chunks[1].metadata["language"] == "en"


def test_document_strategy_and_unknown_strategy() -> None:
    doc = _parse_document(f"---\n{HEADER}\n---\nOne.\n\nTwo.")
    assert [c.text for c in chunk_document(doc, "document")] == ["One.\n\nTwo."]
    with pytest.raises(UnknownNameError, match="expected one of: paragraph, document"):
        chunk_document(doc, "sentence")


def test_series_defaults_to_id_without_version_suffix() -> None:
    doc = _parse_document("---\nid: kc-returns-v3\ntitle: R\n---\nText.")
    assert doc.series == "kc-returns"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "doc.md: expected a front-matter header starting with '---', found an empty file"),
        (
            b"No header here\n",
            "doc.md:1: expected a front-matter header starting with '---' on line 1, found 'No header here'",
        ),
        (
            b"---\nid: a\ntitle: A\n",
            "doc.md: expected a closing '---' after the front matter, found none",
        ),
        (b"---\ntitle: A\n---\nText", "doc.md: expected front-matter key 'id', found none"),
        (
            b"---\nid: a\ntitle: A\nstatus: draft\n---\nText",
            "doc.md:4: unknown status 'draft'; expected one of: current, superseded",
        ),
        (
            b"---\nid: a\ntitle: A\ncolour: red\n---\nText",
            "doc.md:4: unknown front-matter key 'colour'; expected one of: id, title, version, status, visibility, language, series",
        ),
        (
            b"---\nid: a\ntitle: A\nversion: two\n---\nText",
            "doc.md:4: expected an integer version, found 'two'",
        ),
        (
            b"---\nid: a\ntitle: A\n---\n",
            "doc.md: expected some text after the front matter, found none",
        ),
        (
            b"---\nid: a\ntitle: A\n---\ncaf\xe9",
            "doc.md:5: expected UTF-8 text, found byte 0xe9 at offset 26",
        ),
    ],
)
def test_bad_documents_name_the_file_and_the_expectation(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(content)
    with pytest.raises(DocumentError) as info:
        load_document(path)
    assert str(info.value) == f"{tmp_path}/{message}"


def test_duplicate_document_id_is_refused(tmp_path: Path) -> None:
    write_doc(tmp_path, "a.md", "id: same\ntitle: A", "Text A.")
    write_doc(tmp_path, "b.md", "id: same\ntitle: B", "Text B.")
    with pytest.raises(
        DocumentError,
        match=r"b\.md: expected a unique document id, found 'same' already used by .*a\.md",
    ):
        load_catalog(folders=(tmp_path,))


def test_scope_hides_restricted_and_superseded(tmp_path: Path) -> None:
    write_doc(tmp_path, "1.md", "id: pub\ntitle: P", "Public text.")
    write_doc(tmp_path, "2.md", "id: old\ntitle: O\nstatus: superseded", "Old text.")
    write_doc(tmp_path, "3.md", "id: sec\ntitle: S\nvisibility: restricted", "Secret text.")
    catalog = load_catalog(folders=(tmp_path,))
    assert catalog.allowed(Scope()) == frozenset({"pub:c0"})
    assert catalog.allowed(Scope.everything()) == frozenset({"pub:c0", "old:c0", "sec:c0"})
    assert isinstance(catalog, Catalog) and catalog.ids() == ("pub:c0", "old:c0", "sec:c0")
