"""What a configuration runs on and through: the searchers built once (`Parts`), the metrics
every run reports, and a configuration's stages as one searcher (`_ConfigSearcher`).

`evalreport.run_config` puts them together; they live here so that the course page's module
stays the page's calls.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from evidencedesk.errors import EvidencedeskError, UnknownNameError
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval._memos import memo
from evidencedesk.retrieval._search_cache import CachedSearcher, LazySearcher, cached_searchers
from evidencedesk.retrieval.catalog import Catalog, Scope
from evidencedesk.retrieval.evidence import context_tokens
from evidencedesk.retrieval.lifecycle import _dense_searcher, build_searchers
from evidencedesk.retrieval.metrics import Judged, judge_run
from evidencedesk.retrieval.searchers import (
    Hit,
    HybridSearcher,
    TwoStage,
    _Reranker,
    _search_many,
    _Searcher,
)

__all__ = [
    "Parts",
]


class _Stages(Protocol):
    """What `_ConfigSearcher` reads of a configuration (`evalreport.Config` is one)."""

    # read-only properties, so that a frozen dataclass satisfies them
    @property
    def depth(self) -> int: ...
    @property
    def final(self) -> int: ...
    @property
    def prefilter(self) -> bool: ...

    def label(self) -> str: ...


class _InScopeFirst:
    """The MiniLM searcher of a catalog's chunks, embedding first the chunks the default scope
    admits (`Scope()`: current versions, public tenants), the scope every configuration's run
    searches unless it names another. A search whose allowed set lies within them is answered
    by a `DenseSearcher` over them alone: the same rows (a row does not depend on the texts
    embedded beside it) in the same catalog order, so the same lists and scores as one over
    every chunk. Any other search (no filter, another scope) gets one over every chunk, made on
    its first such search: only the chunks not embedded yet are embedded then."""

    name = "minilm"

    def __init__(self, catalog: Catalog) -> None:
        self._chunks = chunks = catalog.chunks
        self._admitted = admitted = catalog.allowed(Scope())
        first = tuple(c for c in chunks if c.id in admitted)
        self._first = _dense_searcher(first, "minilm", "minilm")
        self._every = self._first if len(first) == len(chunks) else None
        self._last: tuple[frozenset[str] | None, bool] = (None, False)  # a set asked, within?

    def _for(self, allowed: frozenset[str] | None) -> _Searcher:
        if allowed is not None and self._every is not self._first:
            last, within = self._last
            if allowed is not last:  # a run asks with one set object: compared once
                within = allowed <= self._admitted
                self._last = (allowed, within)
            if within:
                return self._first
        return self.every

    @property
    def every(self) -> _Searcher:
        """The searcher over every chunk (made on first use)."""
        if self._every is None:
            self._every = _dense_searcher(self._chunks, "minilm", "minilm")
        return self._every

    def search(self, query: str, k: int, allowed: frozenset[str] | None) -> list[Hit]:
        return self._for(allowed).search(query, k, allowed)

    def search_many(
        self, queries: Sequence[str], k: int, allowed: frozenset[str] | None
    ) -> list[list[Hit]]:
        return _search_many(self._for(allowed), queries, k, allowed)

    def __getattr__(self, name: str) -> Any:
        """Anything else (``chunks``, ``scores`` ...) is the searcher over every chunk's."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.every, name)


class _Warming:
    """The MiniLM searcher of a catalog (`_InScopeFirst`), built on a daemon thread (a build that
    stops early does not wait for it), and then the rows of `questions` (its first searches
    embed them; the embedder keeps each text's row); `result` waits for both, running batches of
    their embedding meanwhile (`minilm.MiniLMEmbedder.assist`: the thread that asks has nothing
    else to do), and raises what building the searcher raised."""

    def __init__(
        self, catalog: Catalog, embedder: Any = None, questions: Sequence[str] = ()
    ) -> None:
        self._catalog = catalog
        self._embedder = embedder  # the embedder the searcher embeds with, to assist
        self._questions = list(questions) if embedder is not None else []
        self._searcher: _Searcher | None = None
        self._error: BaseException | None = None
        self._done = False
        self._thread = threading.Thread(target=self._run, name="minilm-warm", daemon=True)

    @classmethod
    def start(
        cls, catalog: Catalog, embedder: Any = None, questions: Sequence[str] = ()
    ) -> _Warming:
        made = cls(catalog, embedder, questions)
        made._thread.start()
        return made

    def _run(self) -> None:
        try:
            self._searcher = _InScopeFirst(self._catalog)
            if self._questions:  # after the chunks, on this thread too: the main thread's
                # first search would embed them alone, with the second core idle
                self._embedder.embed_many(self._questions)
        except BaseException as exc:  # handed to the thread that asks for the searcher
            self._error = exc
        finally:
            self._done = True
            if self._embedder is not None:
                self._embedder.wake()

    def result(self) -> _Searcher:
        if self._embedder is not None:
            self._embedder.assist(lambda: self._done)
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._searcher is not None
        return self._searcher


@dataclass(frozen=True)
class Parts:
    """The searchers built once for a catalog (and the pair scorer for ``pair``), reused by runs."""

    searchers: Mapping[str, _Searcher]
    scorer: Any = None

    @classmethod
    def build(
        cls,
        catalog: Catalog,
        scorer: Any = None,
        dense: str = "toy",
        warm: bool = False,
        questions: Sequence[str] = (),
    ) -> Parts:
        """The first stages of `lifecycle.build_searchers(catalog, dense)`, cached, and
        ``"minilm"``: the MiniLM searcher (the dense one itself when `dense` is ``"minilm"``;
        else built on its first search, so a build that never names it never loads it).

        `warm`: a config will search with MiniLM, so load the model and embed the chunks now, on
        a thread of their own (onnxruntime leaves the interpreter free), while the stages before
        that config run; its first search waits for them, running some of their batches itself
        meanwhile. `questions` (with `warm`): the texts its searches will ask, embedded on that
        thread after the chunks. The searcher is made by the same call either way
        (`_InScopeFirst`: the chunks of the default scope embedded first), and a row does not
        depend on its batch or its thread, so its rows are the same."""
        searchers = cached_searchers(build_searchers(catalog, dense))
        if dense == "minilm":
            searchers["minilm"] = searchers["dense"]
        else:
            make = None
            if warm and not minilm._missing_packages():
                make = _Warming.start(catalog, minilm._default_embedder(), questions)
            lazy = LazySearcher("minilm", make.result if make else lambda: _InScopeFirst(catalog))
            # asked for at least what the dense searcher is asked for (the hybrid's pool)
            searchers["minilm"] = CachedSearcher(
                lazy, least=getattr(searchers["dense"], "least", 1)
            )
        return cls(searchers=searchers, scorer=scorer)

    @classmethod
    def of(cls, parts: Parts | Mapping[str, _Searcher]) -> Parts:
        """`parts` itself, or a mapping such as ``lifecycle.build_searchers(catalog)`` made into
        Parts: first stages cached, a missing hybrid fused from sparse and dense, and the default
        pair scorer (`make_reranker`'s) for ``pair`` and ``blend``."""
        if isinstance(parts, Parts):
            return parts
        if not isinstance(parts, Mapping):
            raise EvidencedeskError(
                f"parts: expected Parts or a mapping of first stage -> searcher like "
                f"lifecycle.build_searchers(catalog), found {type(parts).__name__}"
            )
        for name, searcher in parts.items():
            if not callable(getattr(searcher, "search", None)):
                raise EvidencedeskError(
                    f"parts[{name!r}]: expected a searcher (with .search(query, k, allowed)), "
                    f"found {type(searcher).__name__}"
                )
        searchers = cached_searchers(parts)
        if "hybrid" not in searchers and "sparse" in searchers and "dense" in searchers:
            searchers["hybrid"] = HybridSearcher(searchers["sparse"], searchers["dense"])
        return cls(searchers=searchers)

    def first(self, name: str) -> _Searcher:
        if name not in self.searchers:
            raise UnknownNameError("first stage", name, tuple(self.searchers))
        return self.searchers[name]


def _minilm_roles(first_stage: str, reranker: str, dense: str = "toy") -> tuple[str, ...]:
    """What a configuration's stages run the MiniLM model as: ``"searcher"`` when it is the
    first stage (``minilm``, or ``dense``/``hybrid`` when the dense embedder is MiniLM),
    ``"reranker"`` when it is the reranker; () when they do not run it."""
    first = first_stage == "minilm" or (dense == "minilm" and first_stage in ("dense", "hybrid"))
    return (("searcher",) if first else ()) + (("reranker",) if reranker == "minilm" else ())


def _uses_minilm(cfg: Any, dense: str = "toy") -> bool:
    """Whether a configuration runs the MiniLM model (as a searcher or a reranker)."""
    return bool(_minilm_roles(cfg.first_stage, cfg.reranker, dense))


def _summary_names(final: int) -> tuple[str, ...]:
    """The metrics every run reports (deduplicated, in this order)."""
    names = (
        "recall@1",
        "recall@3",
        f"recall@{final}",
        f"precision@{final}",
        "mrr",
        "ndcg@5",
        "ndcg@5:linear",
        f"hit@{final}",
    )
    return tuple(dict.fromkeys(names))


class _ConfigSearcher(TwoStage):
    """A configuration as a searcher (the two stages, the scope, the cut: `TwoStage`), recording
    what reached the prompt (`shown`, one list per search)."""

    def __init__(self, cfg: _Stages, first: _Searcher, reranker: _Reranker | None):
        super().__init__(first, reranker, cfg.depth, cfg.final, cfg.prefilter)
        self.cfg = cfg
        self.name = cfg.label()
        self.shown: list[list[Hit]] = []

    def search(
        self, query: str, k: int | None = None, allowed: frozenset[str] | None = None
    ) -> list[Hit]:
        out = super().search(query, k, allowed)
        self.shown.append(out)
        return out

    def judge(
        self, catalog: Catalog, labels: Sequence[Any], scope: Scope | None, k: int
    ) -> list[Judged]:
        """`metrics.judge_run` of this configuration: both stages first run for every question
        at once (`TwoStage.prime`: stage one batched, the reranker's pairs scored in one call),
        the allowed set computed once for the run."""
        allowed = catalog.allowed(scope)
        # by index: a counting view of the labels (`Tally.asking`) counts a question when it
        # is judged, not here
        self.prime([labels[i].question for i in range(len(labels))], allowed)
        return judge_run(self, _Within(allowed), labels, scope=scope, k=k)

    def tokens_shown(self) -> int:
        """Estimated prompt tokens of every list shown so far (`_prompt_tokens` summed)."""
        return sum(_prompt_tokens(c.chunk.text) for shown in self.shown for c in shown)


class _Within:
    """A catalog as `metrics.judge_run` reads it: the one allowed set of a run, computed once."""

    def __init__(self, allowed: frozenset[str]):
        self._allowed = allowed

    def allowed(self, scope: Scope | None = None) -> frozenset[str]:
        return self._allowed


def _prompt_tokens(text: str) -> int:
    """`evidence.context_tokens` of one chunk's text (a list's estimate is the sum over its
    pieces), kept per text for the build (`memos.memo`): every configuration shows mostly the
    same chunks."""
    kept: dict[str, int] = memo("token counts", dict)
    found = kept.get(text)
    if found is None:
        if len(kept) >= 200_000:
            kept.clear()  # a crude bound on memory; results do not depend on it
        found = kept[text] = context_tokens([text])
    return found
