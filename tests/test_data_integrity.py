"""Integrity rules of the demo data set (data/): labels, scopes, the recall identifier, tenants, dups.

These are rules, not fixed counts, so that documents and labelled questions can be added.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from evidencedesk.chunking import load_document
from evidencedesk.paths import _LABELS, CORPUS, DATA, DOCS, DUPS, TENANT_DOCS
from evidencedesk.retrieval.catalog import Scope, load_catalog
from evidencedesk.retrieval.labels import _TAGS, load_labels

RECALL_ID = "RD2-24"
RECALL_DOC = "kc-recall-rd2-24"
RESTRICTED_DOC = "kc-internal-goodwill"
QUESTION_ID = re.compile(r"^[a-z]+[0-9]+$")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def full_catalog():
    return load_catalog(folders=(CORPUS, DOCS, DUPS, TENANT_DOCS))


@pytest.fixture(scope="module")
def labels(catalog):
    return load_labels(_LABELS, catalog=catalog)


def _raw_labels() -> list[dict]:
    lines = _LABELS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_every_labelled_chunk_exists_in_corpus_and_docs(catalog, labels):
    unknown = sorted(
        (label.id, chunk_id)
        for label in labels
        for chunk_id in label.grades
        if chunk_id not in catalog
    )
    assert unknown == []
    # the raw file agrees with the parsed labels (nothing silently dropped)
    assert [row["id"] for row in _raw_labels()] == [label.id for label in labels]


def test_labels_never_name_dups_or_tenant_chunks(labels):
    other = load_catalog(folders=(DUPS, TENANT_DOCS))
    named = {chunk_id for label in labels for chunk_id in label.grades}
    assert named.isdisjoint(other.ids())


def test_question_ids_are_unique_and_short(labels):
    ids = [label.id for label in labels]
    assert len(ids) == len(set(ids))
    assert all(QUESTION_ID.match(qid) for qid in ids), ids


def test_answerable_questions_have_a_grade_2_chunk_in_default_scope(catalog, labels):
    visible = catalog.allowed(Scope())
    missing = [
        label.id
        for label in labels
        if label.answerable and not any(c in visible for c in label.relevant)
    ]
    assert missing == []


def test_unanswerable_questions_have_no_grade_2_chunk_and_the_tag(labels):
    for label in labels:
        if label.answerable:
            assert "unanswerable" not in label.tags, label.id
            assert label.relevant, label.id
        else:
            assert "unanswerable" in label.tags, label.id
            assert label.relevant == frozenset(), label.id
            assert all(grade < 2 for grade in label.grades.values()), label.id


def test_tags_are_known_and_each_used_at_least_twice(labels):
    counts = Counter(tag for label in labels for tag in label.tags)
    assert set(counts) <= set(_TAGS), sorted(set(counts) - set(_TAGS))
    assert set(counts) == set(_TAGS), sorted(set(_TAGS) - set(counts))
    assert all(n >= 2 for n in counts.values()), counts
    for label in labels:
        assert label.tags, label.id
        assert len(label.tags) == len(set(label.tags)), label.id


def test_data_set_mixes_answerable_and_unanswerable(labels):
    answerable = sum(label.answerable for label in labels)
    assert answerable >= 1
    assert len(labels) - answerable >= 2


def test_structured_questions_are_answered_by_a_table_in_docs(catalog, labels):
    doc_ids = {doc.id for doc in catalog.documents if doc.path.startswith(str(DOCS))}
    for label in labels:
        if "structured" not in label.tags:
            continue
        tables = [
            c
            for c in label.relevant
            if catalog.get(c).doc_id in doc_ids and catalog.get(c).text.lstrip().startswith("|")
        ]
        assert tables, label.id


def test_bangla_questions_are_in_bangla_and_answered_by_bangla_chunks(catalog, labels):
    bengali = re.compile(r"[\u0980-\u09ff]")
    bangla = [label for label in labels if "bangla" in label.tags]
    assert bangla
    for label in bangla:
        assert bengali.search(label.question), label.id
        assert any(catalog.get(c).language == "bn" for c in label.relevant), label.id


def test_bangla_documents_have_real_bangla_text_with_vowel_signs(catalog):
    bn = [c for c in catalog.chunks if c.language == "bn"]
    assert len(bn) >= 3
    vowel_sign = re.compile(r"[\u09be-\u09cc]")
    assert all(vowel_sign.search(c.text) for c in bn)


def test_stale_questions_have_a_superseded_trap_and_a_current_answer(catalog, labels):
    stale = [label for label in labels if "stale" in label.tags]
    assert len(stale) >= 2
    for label in stale:
        graded = [catalog.get(c) for c in label.grades]
        assert any(c.status == "superseded" and label.grade_of(c) < 2 for c in graded), label.id
        assert any(catalog.get(c).status == "current" for c in label.relevant), label.id


def test_restricted_questions_touch_the_restricted_note(catalog, labels):
    restricted = [label for label in labels if "restricted" in label.tags]
    assert len(restricted) >= 2
    for label in restricted:
        assert any(catalog.get(c).doc_id == RESTRICTED_DOC for c in label.grades), label.id
        # the restricted note is never the only answer of an answerable question
        if label.answerable:
            public = catalog.allowed(Scope())
            assert any(c in public for c in label.relevant), label.id


def test_recall_identifier_stands_beyond_the_eighth_word(catalog):
    chunks = [c for c in catalog.chunks if c.doc_id == RECALL_DOC]
    with_id = [c for c in chunks if RECALL_ID in c.text]
    assert with_id, "the recall notice must name RD2-24"
    for chunk in with_id:
        words = chunk.text.split()
        positions = [i for i, w in enumerate(words) if RECALL_ID in w]
        assert min(positions) >= 8, (chunk.id, positions)
        assert RECALL_ID not in " ".join(words[:8])
    # the title travels with the passage for rerankers: it must not carry the identifier
    assert all(RECALL_ID not in c.title for c in chunks)


def test_no_default_scope_chunk_has_the_identifier_in_its_first_eight_words(full_catalog):
    visible = full_catalog.allowed(Scope())
    early = [
        c.id
        for c in full_catalog.chunks
        if c.id in visible and RECALL_ID in " ".join(c.text.split()[:8])
    ]
    assert early == []


def test_the_recall_question_grades_the_recall_chunk(labels):
    exact = [label for label in labels if "exact_term" in label.tags]
    assert len(exact) >= 2
    recall_questions = [label for label in exact if RECALL_ID in label.question]
    assert recall_questions
    assert any(c.startswith(f"{RECALL_DOC}:") for label in recall_questions for c in label.relevant)


def test_returns_v2_is_superseded_and_hidden_v3_is_current(catalog):
    visible = catalog.allowed(Scope())
    v2 = [c for c in catalog.chunks if c.doc_id == "kc-returns-v2"]
    v3 = [c for c in catalog.chunks if c.doc_id == "kc-returns-v3"]
    assert v2 and v3
    assert all(c.status == "superseded" and c.version == 2 for c in v2)
    assert all(c.id not in visible for c in v2)
    assert all(c.status == "current" and c.version == 3 and c.id in visible for c in v3)
    assert {c.series for c in v2 + v3} == {"kc-returns"}
    assert "store credit only" in " ".join(c.text for c in v2)
    assert "30 days" in v3[0].text and "full refund" in v3[0].text


def test_restricted_note_is_hidden_from_the_default_scope(catalog):
    visible = catalog.allowed(Scope())
    note = [c for c in catalog.chunks if c.doc_id == RESTRICTED_DOC]
    assert note
    assert all(c.visibility == "restricted" and c.id not in visible for c in note)
    assert {c.id for c in note} <= catalog.allowed(Scope.everything())


def test_shipping_and_helmet_facts_are_stated(catalog):
    shipping = " ".join(c.text for c in catalog.chunks if c.doc_id == "kc-shipping")
    assert "2 business days" in shipping
    assert "4 to 7 business days" in shipping
    helmets = " ".join(c.text for c in catalog.chunks if c.doc_id == "kc-helmets")
    assert "not eligible for return" in helmets


def test_tenants_own_every_document_exactly_once(full_catalog):
    tenants = json.loads((DATA / "tenants.json").read_text(encoding="utf-8"))["tenants"]
    owned = Counter(doc_id for docs in tenants.values() for doc_id in docs)
    assert all(n == 1 for n in owned.values()), [d for d, n in owned.items() if n > 1]
    assert set(owned) == {doc.id for doc in full_catalog.documents}
    assert all(d.startswith("kc-") for d in tenants["kestrel"])
    assert all(d.startswith("hb-") for d in tenants["harbor"])
    assert len(tenants["harbor"]) >= 2


def test_a_harbor_document_shares_an_identifier_with_kestrel(full_catalog):
    harbor = " ".join(c.text for c in full_catalog.chunks if c.doc_id.startswith("hb-"))
    assert RECALL_ID in harbor


def test_dups_faq_copy_says_30_days_and_partner_page_14(full_catalog):
    faq = load_document(DUPS / "kc-faq-returns.md")
    partner = load_document(DUPS / "kc-partner-returns.md")
    assert "within 30 days" in faq.body and "14 days" not in faq.body
    assert "within 14 days" in partner.body and "30 days" not in partner.body
    # same words apart from the number: the partner's first paragraph is the FAQ's with 14 for 30
    faq_text = [c.text for c in full_catalog.chunks if c.doc_id == faq.id][0]
    partner_text = [c.text for c in full_catalog.chunks if c.doc_id == partner.id][0]
    body = faq_text.split("\n")[-1]
    assert body.replace("30", "14") == partner_text.split("\n")[-1]


def test_corpus_and_docs_have_around_fifty_chunks(catalog):
    assert 40 <= len(catalog) <= 60
    docs = {c.doc_id for c in catalog.chunks}
    assert len(docs) >= 12


def _outranked_answers(catalog, labels):
    """(question, answer chunk, marked chunks above it) where, in the baseline's unfiltered first
    stage (hybrid, the whole index), restricted or superseded chunks outrank a current answer
    that the filtered first stage puts in the final list -- and enough of them to push it out
    of the top `depth`, so that filtering after ranking loses it."""
    from evidencedesk.retrieval import lifecycle
    from evidencedesk.retrieval.evalreport import Config

    cfg = Config()
    hybrid = lifecycle.build_searchers(catalog)["hybrid"]
    allowed = catalog.allowed(Scope())
    found = []
    for label in labels:
        filtered = [c.chunk.id for c in hybrid.search(label.question, cfg.final, allowed)]
        unfiltered = [c.chunk.id for c in hybrid.search(label.question, cfg.depth, None)]
        for answer in (c for c in filtered if label.grade_of(c) >= 2):
            if answer not in unfiltered:
                marked = [c for c in unfiltered if c not in allowed]
                found.append((label.id, answer, marked))
    return found


def test_marked_chunks_outrank_a_current_answer_so_that_filtering_after_ranking_loses_it(
    catalog, labels
):
    # the situation, not a number: some question's current answer is pushed out of the top
    # `depth` by superseded versions and a restricted note sharing its words
    lost = _outranked_answers(catalog, labels)
    assert lost, "no current answer is outranked out of the depth by marked chunks"
    for _, answer, marked in lost:
        assert catalog.get(answer).status == "current"
        chunks = [catalog.get(c) for c in marked]
        assert any(c.status == "superseded" for c in chunks)
        assert any(c.visibility == "restricted" for c in chunks)
        # older versions of more than one policy among them
        assert len({c.series for c in chunks if c.status == "superseded"}) >= 2


def test_without_the_pre_filter_marked_chunks_reach_the_list_and_an_answer_is_lost(catalog, labels):
    from evidencedesk.retrieval import lifecycle
    from evidencedesk.retrieval.evalreport import Config, run_config

    searchers = lifecycle.build_searchers(catalog)
    base = run_config(Config(), searchers, catalog, labels)
    late = run_config(Config(prefilter=False), searchers, catalog, labels)
    allowed = catalog.allowed(Scope())
    cfg = Config(prefilter=False)
    by_id = {label.id: label for label in labels}
    lost = []
    for qid, ids in base.final_ids.items():
        label = by_id[qid]
        before_filter = [
            c.chunk.id for c in searchers["hybrid"].search(label.question, cfg.depth, None)
        ]
        answers = {c for c in ids if label.grade_of(c) >= 2}
        if answers - set(late.final_ids[qid]):
            # restricted or superseded chunks were in the list before the late filter ...
            assert [c for c in before_filter if c not in allowed], qid
            # ... none after it, and the final list is shorter than the baseline's
            assert set(late.final_ids[qid]) <= allowed
            assert len(late.final_ids[qid]) < len(ids)
            lost.append(qid)
    assert lost
    assert late.value("recall@3") < base.value("recall@3")
