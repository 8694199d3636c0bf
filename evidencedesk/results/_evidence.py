"""The evidence stage (rows for the evidence page): dedupe, compression, freshness, deletion and tenant boundaries.

Every check is generic: dedupe runs over every answerable question, freshness asks the question
whose answer the update rewrites, deletion removes the first superseded document and asks a
question labelled on it. The lifecycle checks use the baseline's first stage (hybrid), built
before any change, as "the old index". Demo-only inputs (dups, updates, tenants) are optional.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from evidencedesk.chunking import Chunk, chunk_document, load_document
from evidencedesk.errors import ConfigError, DocumentError
from evidencedesk.files._records import markdown_files
from evidencedesk.results.types import (
    CompressionRow,
    EvidenceResult,
    HeldBack,
    Merge,
    StateRow,
    TenantRow,
)
from evidencedesk.retrieval.catalog import Catalog, Scope, _load_documents
from evidencedesk.retrieval.evalreport import Run
from evidencedesk.retrieval.evidence import _compress, dedupe
from evidencedesk.retrieval.labels import Label
from evidencedesk.retrieval.lifecycle import (
    Change,
    Tenancy,
    _leak_table,
    _served_by_question,
    build_searchers,
    delete_document,
    replace_document,
)
from evidencedesk.retrieval.searchers import _Searcher

_FIRST_STAGE = "hybrid"  # the searcher the freshness and deletion checks rebuild and query
# why dedupe keeps both of a held-back pair
_HELD_BACK = "same words, different numbers: different claims, both kept"
Rows = tuple[StateRow, ...]  # the rows of the freshness or the deletion table


def _duplicates(
    catalog: Catalog, labels: Sequence[Label], dups: Path | None, chunking: str = "paragraph"
) -> tuple[int, tuple[Merge, ...], tuple[HeldBack, ...]]:
    """Dedupe the sparse top 20 of each question with a relevant judgment (`Label.answerable`)
    over the catalog plus the dups folder, chunked as the project's documents (`chunking`)."""
    extra_docs = _load_documents([dups]) if dups else []
    extra = catalog.with_documents(extra_docs, chunking)
    searcher = build_searchers(extra)["sparse"]
    allowed = extra.allowed(Scope())
    seen: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    held: set[tuple[str, str]] = set()
    order = extra.position
    for label in labels:
        if not label.answerable:
            continue
        found = searcher.search(label.question, 20, allowed)
        seen |= {c.chunk.id for c in found}
        result = dedupe(found)
        for kept, ids in result.merged.items():
            pairs |= {(kept, i) for i in ids}
        held |= {(min(a, b), max(a, b)) for a, b in result.held_back}
    groups: dict[str, set[str]] = {}
    for a, b in pairs:
        first, second = sorted((a, b), key=order.__getitem__)
        groups.setdefault(first, set()).add(second)
    for first in [f for f in groups if any(f in v for v in groups.values())]:
        groups.pop(first)  # a chunk merged into an earlier one is not also a group of its own
    gone = set().union(*groups.values()) if groups else set()
    merges = tuple(
        Merge(k, tuple(sorted(v))) for k, v in sorted(groups.items(), key=lambda kv: order[kv[0]])
    )
    return len(seen - gone), merges, tuple(HeldBack(a, b, _HELD_BACK) for a, b in sorted(held))


def _compression(
    catalog: Catalog, labels: Sequence[Label], baseline: Run
) -> tuple[CompressionRow, ...]:
    finals: Mapping[str, Sequence[object]] = {
        qid: [catalog.get(c) for c in ids] for qid, ids in baseline.final_ids.items()
    }
    labelled = {
        lb.id: [catalog.get(c) for c, g in lb.grades.items() if g > 0 and c in catalog]
        for lb in labels
    }
    rows = []
    for setting, found_by in (
        ("spans of the baseline's final chunks", finals),
        ("spans of every labelled chunk", labelled),
    ):
        rep = _compress(labels, found_by)  # type: ignore[arg-type]
        kept = rep.questions - len(rep.cut_off) - len(rep.missing)
        rows.append(
            CompressionRow(
                setting, rep.tokens_before, rep.tokens_after, kept, rep.questions, rep.cut_off
            )
        )
    return tuple(rows)


def _rows(rows: Sequence[tuple[str, tuple[str, ...], bool, str]]) -> Rows:
    return tuple(StateRow(state, tuple(ids), stale, note) for state, ids, stale, note in rows)


def _asked_about(labels: Sequence[Label], change: Change) -> Label | None:
    """The question whose answer the update rewrites (a relevant chunk replaced in place)."""
    added = {a.rsplit(":", 1)[-1] for a in change.added}
    rewritten = {c for c in change.superseded if c.rsplit(":", 1)[-1] in added}
    asked = [lb for lb in labels if lb.relevant & rewritten]
    asked = asked or [lb for lb in labels if lb.relevant & set(change.superseded)]
    return min(asked, key=lambda lb: len(lb.relevant), default=None)


# the updates folder's one newer version: its file, and its chunks (`_update_chunks`)
Update = tuple[Path, tuple[Chunk, ...]]


def _the_update(folder: Path) -> Path:
    """The one newer document version of the updates `folder` (the freshness check replaces one
    document and asks the question it rewrites): a second would be read by nothing."""
    found = markdown_files(folder)
    if len(found) != 1:
        names = ", ".join(p.name for p in found[:5]) + (", …" if len(found) > 5 else "")
        raise ConfigError(
            folder,
            f"expected one newer document version (the freshness check replaces one document),"
            f" found {len(found)}: {names}",
        )
    return found[0]


def read_update(catalog: Catalog, folder: Path, chunking: str = "paragraph") -> Update:
    """The updates `folder`'s one newer version (`_the_update`) and its chunks (`_update_chunks`),
    read and checked as the build and validate read them."""
    newer = _the_update(folder)
    return newer, _update_chunks(catalog, newer, chunking)


def _update_chunks(
    catalog: Catalog, update: Path, chunking: str = "paragraph"
) -> tuple[Chunk, ...]:
    """The newer version of a document in the updates file `update`, chunked as the project's
    documents are (`chunking`, so that its chunks stand for the ones it replaces): its id must be
    one of its own (a version's id is its document's with "-v<N>": `chunking` makes the
    series from it), or the version would clash with the document it is meant to replace."""
    chunks = tuple(chunk_document(load_document(update), chunking))
    doc = chunks[0].doc_id if chunks else ""
    if any(c.doc_id == doc for c in catalog.chunks):
        numbered = re.fullmatch(r"(.*)-v(\d+)", doc)
        newer = f"{numbered[1]}-v{int(numbered[2]) + 1}" if numbered else f"{doc}-v2"
        raise DocumentError(
            update,
            f"expected a newer version under an id of its own (such as {newer!r}: the id "
            f"without '-v<N>' names the document it replaces), found {doc!r}, a document the "
            "project already holds",
        )
    return chunks


def _freshness(
    catalog: Catalog, labels: Sequence[Label], update: Update, old_index: _Searcher, k: int,
    dense: str = "toy",
) -> tuple[Rows, str]:  # fmt: skip
    path, chunks = update
    new, change = replace_document(catalog, chunks)
    label = _asked_about(labels, change)
    if label is None:
        return (), f"Freshness: {path.name} changes no labelled answer; nothing to ask."
    q = label.question
    a = _served_by_question(old_index, [q], None, k)[q]
    b = _served_by_question(old_index, [q], new.allowed(Scope()), k)[q]
    rebuilt = build_searchers(new, dense)[_FIRST_STAGE]
    c = _served_by_question(rebuilt, [q], new.allowed(Scope()), k)[q]
    stale = [x for x in a if x in change.superseded]
    # older versions still in the index are as stale as the one just replaced
    superseded = [x for x in a if x in change.superseded or new.get(x).status == "superseded"]
    series = {catalog.get(x).series for x in change.superseded}
    still = [x for x in b if new.get(x).series in series]
    fresh = any(x in change.added for x in c)
    rows = _rows(
        [
            (
                "old index, no filter",
                a,
                bool(superseded),
                f"serves {len(superseded)} superseded chunk(s), {len(stale)} of them of the "
                "replaced version"
                if superseded
                else "serves nothing superseded",
            ),
            (
                "old index, new scope",
                b,
                False,
                "still answers from this document"
                if still
                else "the old version is hidden and the new one is not indexed: no answer from it",
            ),
            (
                "rebuilt index, new scope",
                c,
                any(x in change.superseded for x in c),
                "serves the new version" if fresh else "new version not in the top results",
            ),
        ]
    )
    replaced = ", ".join(sorted({catalog.get(s).doc_id for s in change.superseded}))
    return rows, f"Freshness: {path.name} replaces {replaced}; asked {label.id!r} (top {k})."


def _deletion(
    catalog: Catalog, labels: Sequence[Label], old_index: _Searcher, k: int, dense: str = "toy"
) -> tuple[Rows, str]:
    victim = next((d.id for d in catalog.documents if d.status == "superseded"), None)
    asked = next((lb for lb in labels if any(c.startswith(f"{victim}:") for c in lb.grades)), None)
    if victim is None or asked is None:
        return (), "Deletion: no superseded document with a labelled question to delete."
    new, change = delete_document(catalog, victim)
    q = asked.question
    a = _served_by_question(old_index, [q], None, k)[q]
    b = _served_by_question(old_index, [q], new.allowed(Scope()), k)[q]
    c = _served_by_question(build_searchers(new, dense)[_FIRST_STAGE], [q], None, k)[q]
    still = any(x in change.removed for x in a)
    rows = _rows(
        [
            (
                "old index, not rebuilt, no filter",
                a,
                still,
                f"still serves deleted {victim}" if still else f"{victim} not in the top results",
            ),
            (
                "old index, scope filter",
                b,
                any(x in change.removed for x in b),
                "the scope hides it (superseded), but the index still holds it",
            ),
            (
                "rebuilt index, no filter",
                c,
                any(x in change.removed for x in c),
                "gone from the index",
            ),
        ]
    )
    return rows, f"Deletion: {victim} deleted; asked {asked.id!r} (top {k})."


def _tenants(
    catalog: Catalog, labels: Sequence[Label], tenancy_file: Path, folder: Path, known: set[str],
    dense: str = "toy", chunking: str = "paragraph",
) -> tuple[TenantRow, ...]:  # fmt: skip
    world = catalog.with_documents(_load_documents([folder]), chunking)
    tenancy = Tenancy.load(tenancy_file, known_docs=known | {d.id for d in world.documents})
    rows = _leak_table(build_searchers(world, dense), world, tenancy, labels, Scope(), k=5)
    out = []
    for tenant in tenancy.tenants:
        mine = [r for r in rows if r.tenant == tenant]
        leaked = tuple(sorted({c for r in mine for c in r.leaked}))
        examples = tuple(sorted({c for r in mine for c in r.control_examples}))
        asked = mine[0].questions
        out.append(TenantRow(tenant, True, asked, sum(r.leaks for r in mine), leaked))
        out.append(TenantRow(tenant, False, asked, sum(r.control_foreign for r in mine), examples))
    return tuple(out)


def evidence(
    catalog: Catalog,
    labels: Sequence[Label],
    baseline: Run,
    index: _Searcher,
    dups: Path | None,
    update: Update | None,
    tenancy_file: Path | None,
    tenant_folder: Path | None,
    k: int = 5,
    dense: str = "toy",
    chunking: str = "paragraph",
) -> EvidenceResult:
    """`index` is the baseline's first stage, built before any change: the "old index";
    `dense`: the dense embedder of every index rebuilt here (the project's); `chunking`: how
    the project's documents are chunked, and so the dups and the tenants' own; `update`: the
    newer version's file and its chunks (`read_update`, read with the inputs)."""
    kept, merges, held = _duplicates(catalog, labels, dups, chunking)
    where = " and the dups folder" if dups else ""
    notes = [f"Duplicates: the top 20 (sparse) of every question with a relevant judgment, over "
             f"the catalog{where}."]  # fmt: skip
    freshness: Rows = ()
    if update is not None:
        freshness, note = _freshness(catalog, labels, update, index, k, dense)
        notes.append(note)
    deletion, note = _deletion(catalog, labels, index, k, dense)
    notes.append(note)
    tenants: tuple[TenantRow, ...] = ()
    if tenancy_file is not None and tenant_folder is not None:
        known = {d.id for d in catalog.documents}
        known |= {d.id for d in _load_documents([dups])} if dups else set()
        tenants = _tenants(catalog, labels, tenancy_file, tenant_folder, known, dense, chunking)
        notes.append(
            "Tenants: every question asked as every tenant with sparse, dense and hybrid (top 5); "
            "counts add up over the three searchers. The control asks without the tenant filter."
        )
    compression = _compression(catalog, labels, baseline)
    return EvidenceResult(
        kept, merges, held, compression, freshness, deletion, tenants, tuple(notes)
    )
