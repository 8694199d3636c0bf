"""Results -> the benchmark and candidate tables for papers and notebooks (``evidencedesk
export``): booktabs LaTeX, GitHub Markdown, or one tidy CSV.

The benchmark table has a row per variant and a column per reported metric (mean and 95 %
interval); the candidate table a row per candidate: its verdict, its gate, the primary metric's
paired difference from the baseline with its interval, marked ``*`` when the randomization
test's p, Holm-adjusted across the candidates, is below 0.05 (what decides whether the metric
moved: docs/verdicts.md), the flips and that p. The CSV has a row per run and metric
(`Results.mean_rows`, what `Results.to_dataframe()` holds). Formatting only: every
number is the Results' own, rounded by `report.values.fmt`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from evidencedesk.report.summary import md_code
from evidencedesk.report.values import fmt
from evidencedesk.report.words import metric_label
from evidencedesk.results.rows import MetricStat
from evidencedesk.results.types import FRAME_COLUMNS, Comparison, Results
from evidencedesk.results.what_it_takes import ALPHA

FORMATS = ("latex", "markdown", "csv")  # what `export` writes
_MARK = "*"  # the primary difference is significant (Holm-adjusted randomization p < ALPHA)
# what _MARK says, in the captions
_MARK_WORDS = (
    f"{_MARK}: the randomization test's p, Holm-adjusted across the candidates, is below {ALPHA}"
)
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}",
    "−": "$-$", "Δ": r"$\Delta$", "≥": r"$\geq$",
}  # fmt: skip
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell starting so as a formula


def _mean(m: MetricStat) -> str:
    interval = f" [{fmt(m.low)}, {fmt(m.high)}]" if m.low is not None else ""
    return f"{fmt(m.mean)}{interval}"


def _delta(d: Comparison) -> str:
    mark = _MARK if d.holm_p < ALPHA else ""
    interval = (
        f" [{fmt(d.low, signed=True)}, {fmt(d.high, signed=True)}]" if d.low is not None else ""
    )
    return f"{fmt(d.delta, signed=True)}{mark}{interval}"


def _benchmark(results: Results) -> tuple[list[str], list[list[str]]]:
    """The benchmark table: its header and rows (the name first, unescaped)."""
    metrics = [m.name for m in results.settings.metrics]
    head = ["Variant", *(metric_label(results, m) for m in metrics)]
    rows = []
    for v in results.variants:
        by = {m.metric: m for m in v.metrics}
        rows.append([v.name, *(_mean(by[m]) if m in by else "—" for m in metrics)])
    return head, rows


def _candidates(results: Results) -> tuple[list[str], list[list[str]]]:
    """The candidate table: its header and rows (the name first, unescaped)."""
    primary = results.settings.compared[0].name  # the headline metric: every verdict's primary
    label = metric_label(results, primary)
    flips = metric_label(results, results.settings.flips_metric)
    head = ["Candidate", "Verdict", "Gate", f"Δ {label} [95 % interval]", f"Flips ({flips})",
            "Holm p"]  # fmt: skip
    rows = []
    for c in results.candidates:
        d = c.comparison(c.decision.primary)
        f = c.comparison(results.settings.flips_metric)
        gate = c.gate.verdict if c.gate.evaluated else "not checked"
        rows.append([c.name, c.decision.verdict, gate, _delta(d),
                     f"+{len(f.better)}/−{len(f.worse)}", fmt(d.holm_p)])  # fmt: skip
    return head, rows


def _latex_text(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex(head: list[str], rows: list[list[str]], caption: str, label: str) -> str:
    spec = "l" + "r" * (len(head) - 1)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{_latex_text(caption)}}}",
             rf"\label{{tab:{label}}}", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(_latex_text(h) for h in head) + r" \\", r"\midrule"]  # fmt: skip
    lines += [" & ".join(_latex_text(cell) for cell in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _markdown(head: list[str], rows: list[list[str]], caption: str) -> str:
    cells = [[md_code(row[0], cell=True),
              *(c.replace("|", "\\|").replace(_MARK, "\\" + _MARK) for c in row[1:])]
             for row in rows]  # fmt: skip
    lines = [f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
    lines += [f"| {' | '.join(row)} |" for row in cells]
    return "\n".join([*lines, "", caption]) + "\n"


def _captions(results: Results, name: Callable[[str], str]) -> tuple[str, str]:
    """The two tables' captions, the baseline's name written by `name`."""
    base = name(results.baseline)
    return (
        f"Each variant's mean over the questions with its 95 % bootstrap interval "
        f"(baseline: {base}; {results.answerable} questions decide).",
        f"Each candidate against the baseline {base}: the verdict (did it get better?), the "
        f"gate (may it ship?), the primary metric's paired difference with its 95 % paired "
        f"bootstrap interval, the flips (questions better / worse) and the Holm-adjusted "
        f"randomization p. {_MARK_WORDS}.",
    )


def _csv_cell(value: object) -> object:
    """A text cell that a spreadsheet would run as a formula, quoted with a leading ``'``."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return "" if value is None else value


def _csv(results: Results) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FRAME_COLUMNS)
    writer.writerows([_csv_cell(x) for x in row] for row in results.mean_rows())
    return out.getvalue()


def export_tables(results: Results, form: str) -> str:
    """The benchmark and candidate tables of `results` in `form` (one of `FORMATS`)."""
    bench, cands = _benchmark(results), _candidates(results)
    plain, code = _captions(results, str), _captions(results, md_code)
    writers: dict[str, Callable[[], str]] = {
        "latex": lambda: (
            _latex(*bench, plain[0], "benchmark")
            + ("\n" + _latex(*cands, plain[1], "candidates") if cands[1] else "")
        ),
        "markdown": lambda: (
            _markdown(*bench, code[0])
            + ("\n" + _markdown(*cands, code[1].replace(_MARK, "\\" + _MARK)) if cands[1] else "")
        ),
        "csv": lambda: _csv(results),
    }
    return writers[form]()
