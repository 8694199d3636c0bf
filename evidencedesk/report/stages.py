"""Results -> the pipeline-only sections: sizing, ablations, citations and evidence (formatting)."""

from __future__ import annotations

from evidencedesk.report.model import AblationLine, AblationSection, CitationSection, SizingSection
from evidencedesk.report.values import config_word
from evidencedesk.results import types as r
from evidencedesk.results.settings import Settings
from evidencedesk.retrieval.evalreport import Config, capped_words, sizing_grid

# the sizing page's note on how recall is read
_SIZING_NOTE = "Recall is measured at each row's own final size. "
# the citations page's statement of what the support check cannot see
_CITATION_LIMIT = (
    "The support check compares words and numbers; it cannot see negation. An answer that "
    "says the opposite of its cited chunk with the same words scores perfectly and is wrong."
)


def price_list(settings: Settings) -> str:
    """The sizing page's price list: ms per query plus ms per scored pair ("" without a design)."""
    d = settings.design
    if d is None:
        return ""
    return f"{d.stage_one_ms:g} ms per query + {d.per_pair_ms:g} ms per scored pair"


def _left_out_cells(depths: tuple[int, ...], finals: tuple[int, ...]) -> str:
    """The sizing note's sentence on the grid cells the sweep does not run (depth < final)."""
    skipped = sizing_grid(depths, finals)[1]
    if len(skipped) == 1:
        ((d, f),) = skipped
        return (
            f" Depth {d} × final {f} is not run: its final list is capped by the depth "
            f"({capped_words(d, f)}), so it is the same run as depth {d} × final {d}."
        )
    if skipped:
        cells = "; ".join(f"depth {d} × final {f} ({capped_words(d, f)})" for d, f in skipped)
        return (
            f" Not run, since a final list is capped by the depth and each is the same run as "
            f"its depth × depth cell: {cells}."
        )
    return ""


def sizing(rows: tuple[r.SizingRow, ...], settings: Settings, noise: str = "") -> SizingSection:
    """The sweep's model; `noise`: the "within noise" rule's words (a claim of sizing.html)."""
    assert settings.design is not None  # noqa: S101 - sizing rows exist only with a design
    design = settings.design
    return SizingSection(
        reranker=settings.design.sizing_reranker,
        price_list=price_list(settings),
        rows=rows,
        note=_SIZING_NOTE
        + (f"{noise}." if noise else "")
        + _left_out_cells(design.sizing_depths, design.sizing_finals),
    )


def _change(changes: dict[str, object], base: Config) -> str:
    """An ablation row's change as a reader says it; a capped final list says so."""
    words = ", ".join(f"{k}={config_word(k, str(v))}" for k, v in changes.items())
    cfg = base.replace(**changes)
    return f"{words} ({capped_words(cfg.depth, cfg.final)})" if cfg.capped else words


def ablations(a: r.Ablations, settings: Settings) -> AblationSection:
    """The ablations page's model: a row per change, with its MRR change and interval."""
    assert settings.design is not None  # noqa: S101 - ablation rows exist only with a design
    base = Config(**settings.design.ablation_base)
    return AblationSection(
        base=a.base,
        metric_names=tuple(m.label for m in settings.columns),
        rows=tuple(
            AblationLine(
                row=x,
                change="base" if i == 0 else _change(x.changes, base),
                is_base=i == 0,
                values=tuple(x.metrics[m.name] for m in settings.columns),
            )
            for i, x in enumerate(a.rows)
        ),
    )


def citations(rows: tuple[r.CitationRow, ...]) -> CitationSection:
    """The citations page's model: each scored answer and the negation limit."""
    return CitationSection(cases=rows, limit=_CITATION_LIMIT)
