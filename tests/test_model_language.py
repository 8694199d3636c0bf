"""A model's language stated and checked (issue 35, item 6): MiniLM declares English; a corpus or
questions mostly in another script (by the Unicode script of their letters) get one warning line
from `validate` and `build`, and the pages that show the model say so."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.retrieval import minilm
from tests.page_text import visible

# a small Arabic collection: three documents, two questions (a library's opening hours, fines)
_DOCS = [
    ("d1", "ساعات العمل", "تفتح المكتبة من الساعة التاسعة صباحا حتى الثامنة مساء كل يوم."),
    ("d2", "الغرامات", "غرامة التأخير عشرة قروش عن كل يوم بعد موعد الإرجاع."),
    ("d3", "العضوية", "بطاقة العضوية مجانية لسكان المدينة وتجدد كل عام."),
]
_QUERIES = [("q1", "متى تفتح المكتبة؟", "d1"), ("q2", "كم غرامة التأخير؟", "d2")]
WARNING = (
    "MiniLM-L6-v2 int8 (ONNX) was trained on English text, but the documents are mostly in "
    "Arabic script (100% of their letters) and the questions are mostly in Arabic script (100% "
    "of their letters): its English vocabulary splits such words into single letters, so expect "
    "rankings near chance (docs/minilm.md)"
)


def arabic_project(root: Path, dense: str = "minilm") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": i, "title": t, "text": x}, ensure_ascii=False) + "\n"
        for i, t, x in _DOCS), encoding="utf-8")  # fmt: skip
    (root / "queries.jsonl").write_text("".join(
        json.dumps({"_id": q, "text": t}, ensure_ascii=False) + "\n" for q, t, _ in _QUERIES),
        encoding="utf-8")  # fmt: skip
    (root / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, _, d in _QUERIES),
        encoding="utf-8",
    )
    (root / "evidencedesk.toml").write_text(
        '[project]\nname = "arabic"\n\n[documents]\ncorpus = "corpus.jsonl"\n\n'
        '[questions]\nqueries = "queries.jsonl"\nqrels = "qrels.tsv"\n\n'
        f'[searchers]\ndense = "{dense}"\n',
        encoding="utf-8",
    )
    return root / "evidencedesk.toml"


def main(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("documents", "questions", "expected"),
    [
        (["The library opens at nine."], ["When does it open?"], None),
        (["ساعات العمل"], ["When does it open?"], "the documents are mostly in Arabic script"),
        (["The library"], ["কখন খোলে?"], "the questions are mostly in Bengali script"),
        # a Bangla page among English ones (the demo): mostly Latin, no warning
        (["The library opens at nine every day of the week.", "কখন খোলে"], ["open?"], None),
        ([""], ["123 ?"], None),  # no letter: nothing to say
    ],
)
def test_the_script_is_read_from_the_letters(
    documents: list[str], questions: list[str], expected: str | None
) -> None:
    found = minilm._language_warning(documents, questions)
    assert (found is None) if expected is None else (expected in (found or ""))


def test_the_model_declares_its_language() -> None:
    assert minilm.MiniLMEmbedder.language == minilm.BiEncoderPairScorer.language == "English"
    assert minilm._caveat(["searcher"]).endswith("It was trained on English text only.")


def test_validate_warns_about_an_arabic_corpus(tmp_path: Path) -> None:
    project = arabic_project(tmp_path / "arabic")
    code, out, err = main("validate", "--project", str(project))
    assert (code, err) == (0, "")
    assert f"warning: {WARNING}" in out.splitlines()
    # the toy embedder reads letters, not a vocabulary: nothing to warn about
    quiet = arabic_project(tmp_path / "toy", dense="toy")
    assert "MiniLM" not in main("validate", "--project", str(quiet))[1]


def test_the_build_warns_and_the_pages_say_so(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    project = arabic_project(tmp_path / "arabic")
    site = tmp_path / "site"
    code, _, err = main("build", "--project", str(project), "--out", str(site), "-q")
    assert code == 0, err
    assert err.splitlines().count(f"warning: {WARNING}") == 1
    results = json.loads((site / "results.json").read_text("utf-8"))
    assert [m["warning"] for m in results["models"]] == [WARNING]
    for page in ("index.html", "methods.html"):  # the caveat in full
        assert f"Warning: {WARNING}." in visible((site / page).read_text("utf-8"), unescape=True)
    facts = dict(map(tuple, results["models"][0]["facts"]))  # results.json: what ran
    assert facts["language"].startswith("English: trained on English sentence pairs")
    short = (
        "MiniLM is a bi-encoder, not a cross-encoder; it was not trained on this project's script"
    )
    for page in ("benchmark.html", "ablations.html", "flips.html"):  # the caveat in a few words
        text = visible((site / page).read_text("utf-8"), unescape=True)
        assert short in text, page


def test_a_minilm_run_warns_too(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    project = arabic_project(tmp_path / "arabic", dense="toy")
    out = tmp_path / "arabic" / "minilm.run"
    code, _, err = main("run", "--project", str(project), "--searcher", "minilm", "--out", str(out))
    assert code == 0, err
    assert err.splitlines()[0] == f"warning: {WARNING}"
    code, _, err = main("run", "--project", str(project), "--searcher", "sparse", "--out",
                        str(tmp_path / "arabic" / "bm25.run"))  # fmt: skip
    assert code == 0 and "warning" not in err  # BM25 reads whole words in any script
