"""The metric registry: every metric declared once, read under every name a search team types.

A table of the names users type (evidencedesk's, trec_eval's, ir_measures', ranx's) and what each
reads as; every declared spelling reads as its own metric; the labels; "did you mean" for an
unknown name; the README's table and docs/metrics.md against the declarations; the tools' own
names checked against ir_measures and pytrec_eval, which must know them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from evidencedesk._metric_names import (
    MEASURES,
    METRIC_FORMS,
    canonical,
    definitions,
    label,
    per_question_label,
    read_metric,
    reading_note,
    reads_whole_list,
    reference_table,
    shadowed,
    split_metric,
)
from evidencedesk.errors import UnknownNameError
from evidencedesk.retrieval.metrics import _parse_metric

ROOT = Path(__file__).resolve().parents[1]

# what a user types -> the canonical name it reads as
TYPED = [
    # evidencedesk's own forms, any case
    ("recall@10", "recall@10"), ("precision@5", "precision@5"), ("hit@3", "hit@3"),
    ("mrr", "mrr"), ("MRR", "mrr"), ("mrr@10", "mrr@10"), ("map", "map"), ("map@100", "map@100"),
    ("rprec", "rprec"), ("ndcg@5", "ndcg@5"), ("ndcg@5:exp", "ndcg@5"),
    ("ndcg@10:linear", "ndcg@10:linear"), ("ndcg", "ndcg"), ("ndcg:exp", "ndcg"),
    ("ndcg:linear", "ndcg:linear"), ("bpref", "bpref"), (" Recall@3 ", "recall@3"),
    # trec_eval, as it prints them and as -m takes them
    ("P_10", "precision@10"), ("P.10", "precision@10"), ("recall_100", "recall@100"),
    ("recall.100", "recall@100"), ("recip_rank", "mrr"), ("map_cut_10", "map@10"),
    ("map_cut.10", "map@10"), ("ndcg_cut_10", "ndcg@10:linear"), ("ndcg_cut.10", "ndcg@10:linear"),
    ("Rprec", "rprec"), ("success_5", "hit@5"), ("success.5", "hit@5"),
    # ir_measures
    ("P@10", "precision@10"), ("R@100", "recall@100"), ("RR", "mrr"), ("RR@10", "mrr@10"),
    ("MRR@10", "mrr@10"), ("AP", "map"), ("AP@10", "map@10"), ("MAP", "map"),
    ("Success@5", "hit@5"), ("Bpref", "bpref"), ("BPref", "bpref"),
    ("nDCG(dcg='exp-log2')@10", "ndcg@10"), ('nDCG(dcg="exp-log2")', "ndcg"),
    # ranx
    ("hit_rate@5", "hit@5"), ("r-precision", "rprec"), ("ndcg_burges@10", "ndcg@10"),
    ("ndcg_burges", "ndcg"), ("R-prec", "rprec"),
    # spelled like evidencedesk's own exp-gain forms: evidencedesk's reading wins
    ("nDCG@10", "ndcg@10"), ("NDCG", "ndcg"),
]  # fmt: skip


@pytest.mark.parametrize(("typed", "expected"), TYPED)
def test_every_name_a_team_types_reads_as_one_declared_metric(typed: str, expected: str) -> None:
    assert canonical(typed) == expected
    # the same declared metric whichever name: the registry's and the notebook API's
    assert read_metric(typed) == read_metric(expected)
    spec = _parse_metric(typed)
    assert spec == read_metric(typed) and (spec.name, spec.canonical) == (expected, expected)
    assert (spec.kind, spec.k, spec.gain or "exp") == split_metric(expected)


def _spellings(m):  # type: ignore[no-untyped-def]
    hidden = {name for form, name in shadowed() if form == m.form}
    return [m.form, *m.aliases, *(n for n in m.tool_names if n not in hidden)]


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.form)
def test_each_declared_spelling_parses_to_its_own_metric(measure) -> None:  # type: ignore[no-untyped-def]
    for spelling in _spellings(measure):
        for k in (7, 1000) if measure.cutoff else (None,):
            typed = spelling.replace("{k}", str(k))
            found = read_metric(typed)
            assert (found.measure, found.k) == (measure, k), typed
            assert found.canonical == measure.form.replace("{k}", str(k))


def test_a_tool_name_spelled_like_an_evidencedesk_form_is_listed_and_reads_as_ours() -> None:
    assert shadowed() == (
        ("ndcg@{k}:linear", "nDCG@{k}"), ("ndcg@{k}:linear", "ndcg@{k}"),
        ("ndcg:linear", "ndcg"), ("ndcg:linear", "nDCG"),
    )  # fmt: skip
    assert reading_note("ndcg") == (
        "'ndcg' reads as nDCG (exp gain); trec_eval's, ir_measures' and ranx's ndcg is nDCG "
        "(linear gain), written ndcg:linear here"
    )
    assert reading_note("nDCG@10") == (
        "'nDCG@10' reads as nDCG@10 (exp gain); ir_measures' and ranx's nDCG@10 is nDCG@10 "
        "(linear gain), written ndcg@10:linear here"
    )
    for plain in ("ndcg:exp", "ndcg@10:linear", "ndcg_cut_10", "map", "AP"):
        assert reading_note(plain) is None


def test_no_two_metrics_claim_a_spelling_with_the_same_precedence() -> None:
    own = {}
    for m in MEASURES:
        for spelling in (m.form, *m.aliases):
            key = spelling.lower().replace("{k}", "10")
            assert own.setdefault(key, m) is m, spelling


@pytest.mark.parametrize(
    ("name", "shown", "per_question"),
    [
        ("recall@10", "R@10", "R@10"), ("precision@10", "P@10", "P@10"), ("hit@3", "hit@3", "hit@3"),
        ("mrr", "MRR", "reciprocal rank"),
        ("mrr@10", "MRR@10 (cut at 10)", "reciprocal rank (cut at 10)"),
        ("map", "MAP", "AP"), ("map@10", "MAP@10", "AP@10"), ("rprec", "R-prec", "R-prec"),
        ("ndcg@5", "nDCG@5 (exp gain)", "nDCG@5 (exp gain)"),
        ("ndcg@10:linear", "nDCG@10 (linear gain)", "nDCG@10 (linear gain)"),
        ("ndcg", "nDCG (exp gain)", "nDCG (exp gain)"),
        ("ndcg_cut_10", "nDCG@10 (linear gain)", "nDCG@10 (linear gain)"),
        ("bpref", "bpref", "bpref"), ("judged@10", "Judged@10", "Judged@10"),
    ],
)  # fmt: skip
def test_labels_name_the_gain_and_the_cut_off(name: str, shown: str, per_question: str) -> None:
    assert label(name) == shown
    assert per_question_label(name) == per_question


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("ndcg_cut10", "did you mean ndcg@10:linear (ndcg_cut_10), ndcg@10 or map@10 (map_cut_10)?"),
        ("mapp", "did you mean map or map@10?"),
        ("recall", "did you mean recall@10?"),
        ("bpref@10", "did you mean bpref, recall@10 (R@10) or precision@10?"),
    ],
)  # fmt: skip
def test_an_unknown_name_gets_the_closest_valid_names(typed: str, hint: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        read_metric(typed)
    assert str(info.value) == (
        f"unknown metric {typed!r}; {hint} expected one of: {', '.join(METRIC_FORMS)}"
    )


@pytest.mark.parametrize("bad", ["", "ndcg@0", "recall@-1", "P_0", "mrr@", "bpref:linear", None, 3])
def test_names_no_metric_answers_to_are_refused(bad: object) -> None:
    with pytest.raises(UnknownNameError):
        read_metric(bad)


def test_which_metrics_read_the_whole_list() -> None:
    assert not reads_whole_list(["recall@10", "mrr", "mrr@10", "map@10", "ndcg@10:linear"])
    for whole in ("map", "rprec", "ndcg", "ndcg:linear", "bpref", "Rprec"):
        assert reads_whole_list(["recall@10", whole])


def test_the_methods_page_definitions_name_the_tools_and_group_cut_offs() -> None:
    (recall, mrr10) = definitions(["recall@1", "R@3", "mrr@10"])
    assert recall == (
        "R@1, R@3",
        "relevant results in the top k ÷ R, every relevant document the judgments hold "
        "(k = 1, 3). Other tools: trec_eval recall_k, ir_measures R@k, ranx recall@k.",
    )
    assert mrr10[0] == "MRR@10 (cut at 10)"
    # a metric whose undefined questions differ from the common rule says so
    (judged,) = definitions(["judged@10"])
    assert judged[1].endswith(
        "It is undefined where the question has no relevant judgment or the list is empty."
    )
    assert "trec_eval's recip_rank has no cut-off" in mrr10[1]
    assert "ir_measures RR@10, ranx mrr@10" in mrr10[1]


def test_the_readme_table_is_the_declarations() -> None:
    # scripts/metric_table.py writes it; run it after declaring or renaming a metric
    spec = importlib.util.spec_from_file_location(
        "metric_table", ROOT / "scripts" / "metric_table.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert script.with_table(readme) == readme
    table = reference_table()
    assert table in readme
    # every metric with its trec_eval and ir_measures names (— where the tool has none)
    assert "| `map` | MAP | `map` | `AP` | `map` |" in table
    assert (
        "| `ndcg@k:linear` | nDCG@k (linear gain) | `ndcg_cut_k` | `nDCG@k` ¹ | `ndcg@k` ¹ |"
        in table
    )
    assert len(table.splitlines()) == 2 + len(MEASURES) + 2


def test_docs_metrics_page_names_every_form_and_every_tool_name() -> None:
    page = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    for m in MEASURES:
        for name in (m.form, *m.aliases, *m.tool_names):
            assert f"`{name.replace('{k}', 'k')}`" in page, name


def test_ir_measures_knows_every_ir_measures_name_we_declare() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    for m in MEASURES:
        if m.ir_measures is not None:
            ir_measures.parse_measure(m.ir_measures.replace("{k}", "10"))


def test_pytrec_eval_knows_every_trec_eval_name_we_declare() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    for m in MEASURES:
        if m.trec_eval is not None:
            base = m.trec_eval.replace("_{k}", "")
            assert base in pytrec_eval.supported_measures, m.trec_eval
