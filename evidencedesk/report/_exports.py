"""The site model -> ``summary.md``: the report's decision in Markdown, for a CI job summary or a
pull-request comment (docs/ci.md).

It says what the index's first screen says -- the bottom line, one row per candidate (verdict,
gate, the primary metric's difference with its interval, flips), each failing gate rule, the
coverage and judgment warnings -- and where the full site is. Every word comes from the site
model (made from the Results by `report.assemble`), so the summary computes nothing and says
nothing a page does not; `evidencedesk audit` holds it line by line to the summary its oracle
restates from results.json (`report.oracle.summary_lines`, apart from this module).

Markdown from data must stay text wherever the summary is read (GitHub, GitLab, a terminal): a
name or id stands alone in a code span (`_md_code`: no link, image, HTML, emphasis, mention or
issue reference is read inside one, and a ``|`` is escaped where it would end a table cell); a
sentence has every character that opens or ends markup backslash-escaped (`_words`), which
CommonMark reads as that character and nothing else. Control and bidirectional
characters are shown as visible escapes in both (`inert.printable`), and a name's invisible
characters too (`inert.visible`).

Results -> the benchmark and candidate tables for papers and notebooks (``evidencedesk
export``): booktabs LaTeX, GitHub Markdown, or one tidy CSV.

The benchmark table has a row per variant and a column per reported metric (mean and 95 %
interval); the candidate table a row per candidate: its verdict, its gate, the primary metric's
paired difference from the baseline with its interval, marked ``*`` when the randomization
test's p, Holm-adjusted across the candidates, is below 0.05 (what decides whether the metric
moved: docs/verdicts.md), the flips and that p. The CSV has a row per run and metric
(`Results.mean_rows`, what `Results.to_dataframe()` holds). Formatting only: every
number is the Results' own, rounded by `report.values.fmt`.

The benchmark as the command line prints it: the site's benchmark table, from the same Results.

``evidencedesk benchmark`` and the site read one `Results` (`results.evaluate.evaluation`), so
they name the same primary metric, the same baseline, the same means, intervals, flips and
p-values. The baseline's row comes first; every other row's flips are against it, on the flips
metric (the primary), with the exact sign test and its Holm adjustment across the pairs of
variants, as on the site's benchmark page.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from typing import Any

from evidencedesk._inert import printable, visible
from evidencedesk._metric_names import label
from evidencedesk.files._writing import text_cell
from evidencedesk.report._model import BottomLine, SiteModel
from evidencedesk.report._values import fmt, interval, number
from evidencedesk.report._words import (
    counts_sentence,
    defined_by,
    how_many,
    metric_label,
    partial_warnings,
    questions_decide,
)
from evidencedesk.results.types import (
    _FRAME_COLUMNS,
    Comparison,
    MetricStat,
    Results,
    VariantResult,
)
from evidencedesk.retrieval._stats import ALPHA, LARGE, p_text

# what opens or ends Markdown inside a line: links and images, autolinks and HTML, entities,
# emphasis, strikethrough, code, table cells, mentions and e-mail autolinks
_MARKUP = re.compile(r"([\\`*_\[\]<>|&~!@])")


# GFM's extended autolinks ("www.", "scheme://"): their "." or ":" escaped
_AUTOLINK = re.compile(r"(?i)(?<=www)\.|:(?=//)")


# what a line may not start with: a heading, quote, list item, thematic break or setext line
_LINE_START = re.compile(r"^(?:[#>+=-]|\d+(?=[.)]))")


_TICKS = re.compile("`+")


def _plain(text: str) -> str:
    """Text on one line: its control (a newline too) and bidirectional characters
    shown as escapes."""
    return printable(str(text))


def _md_code(text: str, cell: bool = False) -> str:
    """A name or id from data as one Markdown code span (inside a table cell: `cell`, its ``|``
    escaped): nothing in it is read as Markdown (see the module)."""
    shown = _plain(visible(text)) or "(empty)"
    fence = "`" * (1 + max((len(t) for t in _TICKS.findall(shown)), default=0))
    pad = " " if shown[0] in "` " or shown[-1] in "` " else ""
    span = f"{fence}{pad}{shown}{pad}{fence}"
    return span.replace("|", "\\|") if cell else span


def _words(text: str, opens: bool = False) -> str:
    """Words that may hold data, as Markdown text and nothing else: each character that opens
    or ends markup backslash-escaped (CommonMark reads an escaped character as that character);
    `opens`: they open a heading or a list item, so their first character may not start a block."""
    text = _AUTOLINK.sub(lambda m: "\\" + m.group(), _MARKUP.sub(r"\\\1", _plain(text)))
    start = _LINE_START.match(text) if opens else None
    if start is None:
        return text
    if start.group()[0].isdigit():  # "1." or "1)" starts an ordered list: escape its mark
        return f"{start.group()}\\{text[start.end() :]}"
    return f"\\{text}"


def _bottom_line(b: BottomLine, model: SiteModel) -> list[str]:
    if not b.rows:
        return [
            f"No candidate changes to decide on: only the baseline {_md_code(model.meta.baseline)}."
        ]
    verdicts = ", ".join(f"{v.count} {_words(v.key)}" for v in b.verdicts.by_verdict)
    gate = (
        ", ".join(f"{t.count} {t.key}" for t in b.gate.levels)
        if b.gate.checked
        else "no gate policy, nothing checked"
    )
    line = f"**Did it get better?** {verdicts} · **May it ship?** {gate}"
    lead = (
        "**Best lead:** none"
        if b.lead is None
        else f"**Best lead:** {_md_code(b.lead.candidate)}{_words(b.lead.tied)}, "
        f"{_words(b.lead.delta)} over "
        f"{how_many(b.lead.n, 'question')} ({_words(b.lead.verdict)})"
    )
    return [f"{line}  ", lead]


def _table(b: BottomLine, model: SiteModel) -> list[str]:
    if not b.rows:
        return []
    head = (
        f"| Candidate | Verdict | Gate | Δ {_words(b.metric)} [95 % interval] "
        f"| Flips ({_words(b.flips_metric)}) |"
    )
    lines = ["", head, "|---|---|---|---|---|"]
    for r in b.rows:
        gate = _words(r.gate) if r.gated else "not checked"
        d = r.primary
        delta = f"{number(d.delta, signed=True)} {interval(d, signed=True)} n={d.n}"
        lines.append(
            f"| {_md_code(r.name, cell=True)} | {_words(r.verdict)} | {gate} | {_words(delta)} "
            f"| {_words(r.flips)} |"
        )
    lines.append("")
    lines.append(
        f"Verdict: did it get better than the baseline {_md_code(model.meta.baseline)} (the "
        "statistics)? Gate: may it ship (the release policy)? Flips: questions better / worse."
    )
    return lines


def _failing_rules(model: SiteModel) -> list[str]:
    if model.gate is None:
        return []
    lines = []
    for c in model.gate.candidates:
        for r in c.rules:
            if not r.breached:
                continue
            metric = f" ({_words(r.metric)})" if r.metric else ""
            lines.append(
                f"- {_md_code(c.name)} {_words(r.status)}: `{r.rule}`{metric} "
                f"{_words(r.observed)}, needs {_words(r.threshold)}"
            )
    # the baseline failing the policy's own floors, first: a candidate's REVIEW or BLOCK below
    # may be the baseline's, not the change's (as the index and the gate page say)
    own = model.gate.baseline_fails
    first = [f"{_words(own, opens=True)}.", ""] if own else []
    return ["", "## Gate: failing rules", "", *first,
            *(lines or ["None: every evaluated rule passes."])]  # fmt: skip


def _warnings(model: SiteModel) -> list[str]:
    lines = [f"- {_words(n, opens=True)}" for n in model.meta.notices]
    for c in model.candidates:
        found = [*c.warnings]
        if c.judged is not None and c.judged.caveat_words:
            found.append(c.judged.caveat_words)
        if c.condensed is not None and not c.condensed.agrees:
            found.append(c.condensed.words)
        lines += [f"- {_md_code(c.name)}: {_words(w)}" for w in found]
    lines += [f"- {_md_code(n.name)}: {_words(n.reason)}" for n in model.not_run]
    return ["", "## Warnings", "", *(lines or ["None about coverage or judgments."])]


def summary_markdown(model: SiteModel) -> str:
    """The Markdown summary of a site model (see the module): bottom line, candidate rows,
    failing gate rules, warnings, and where the full site is."""
    lines = [f"# {_words(model.meta.title, opens=True)}", ""]
    if model.bottom_line is not None:
        lines += _bottom_line(model.bottom_line, model)
        lines += _table(model.bottom_line, model)
    lines += _failing_rules(model)
    lines += _warnings(model)
    lines += [
        "",
        "## The full report",
        "",
        "The static site this file sits in: open `index.html` (it works offline); "
        "each candidate has its page"
        + (", the gate its rules on `gate.html`. " if model.gate is not None else ". ")
        + f"Seed {model.meta.seed}, inputs `{model.meta.input_hash[:12]}`.",
    ]
    return "\n".join(lines) + "\n"


FORMATS = ("latex", "markdown", "csv")  # what `export` writes


_MARK = "*"  # the primary difference is significant (Holm-adjusted randomization p < ALPHA)


# what _MARK says, in the captions
_MARK_WORDS = (
    f"{_MARK}: the randomization test's p, Holm-adjusted across the candidates, is below {ALPHA}"
)


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}",
    "−": "$-$", "Δ": r"$\Delta$", "≥": r"$\geq$", "<": "$<$", ">": "$>$",
}  # fmt: skip


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
        gate = c.gate.word
        rows.append([c.name, c.decision.verdict, gate, _delta(d),
                     f"+{len(f.better)}/−{len(f.worse)}", p_text(d.holm_p)])  # fmt: skip
    return head, rows


def _latex_text(text: str) -> str:
    """`text` as LaTeX prints it: its special characters escaped and every run of white space
    one space (a blank line in a name would end the table's paragraph)."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in " ".join(text.split()))


def _latex(head: list[str], rows: list[list[str]], caption: str, label: str) -> str:
    spec = "l" + "r" * (len(head) - 1)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{_latex_text(caption)}}}",
             rf"\label{{tab:{label}}}", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(_latex_text(h) for h in head) + r" \\", r"\midrule"]  # fmt: skip
    lines += [" & ".join(_latex_text(cell) for cell in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _markdown(head: list[str], rows: list[list[str]], caption: str) -> str:
    cells = [[_md_code(row[0], cell=True),
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
        f"(baseline: {base}; {questions_decide(results.plan.data.deciding)}).",
        f"Each candidate against the baseline {base}: the verdict (did it get better?), the "
        f"gate (may it ship?), the primary metric's paired difference with its 95 % paired "
        f"bootstrap interval, the flips (questions better / worse) and the Holm-adjusted "
        f"randomization p. {_MARK_WORDS}.",
    )


def _csv_cell(value: object) -> object:
    """A cell of the CSV export: text as every export writes it (`text_cell`: no formula, no
    extra column or line), a number as it is, None as an empty cell."""
    if isinstance(value, str):
        return text_cell(value)
    return "" if value is None else value


def _csv(results: Results) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_FRAME_COLUMNS)
    writer.writerows([_csv_cell(x) for x in row] for row in results.mean_rows())
    return out.getvalue()


def export_tables(results: Results, form: str) -> str:
    """The benchmark and candidate tables of `results` in `form` (one of `FORMATS`)."""
    bench, cands = _benchmark(results), _candidates(results)
    plain, code = _captions(results, str), _captions(results, _md_code)
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


def _ordered(results: Results) -> list[VariantResult]:
    base = results.variant(results.baseline)
    return [base, *(v for v in results.variants if v.name != results.baseline)]


def _cell(value: float | None) -> str:
    return "n/a" if value is None else fmt(value).replace("−", "-")


def _layout(columns: list[str], rows: list[list[str]]) -> list[str]:
    """Header, rule and rows: the first column left-aligned, the numbers right-aligned."""
    widths = [max(len(row[c]) for row in [columns, *rows]) for c in range(len(columns))]

    def line(cells: list[str]) -> str:
        out = [cells[0].ljust(widths[0])]
        out += [cell.rjust(widths[c]) for c, cell in enumerate(cells) if c > 0]
        return "  ".join(out).rstrip()

    return [line(columns), "  ".join("-" * w for w in widths)] + [line(row) for row in rows]


def benchmark_text(results: Results, caveats: tuple[str, ...] = ()) -> str:
    """The table, a line saying how to read it, and `caveats` (what the variants are)."""
    settings = results.settings
    primary = settings.compared[0]
    flips_label = settings.metric(settings.flips_metric).label
    counts = results.inputs.counts
    variants = how_many(len(results.variants), "variant")
    head = f"benchmark: {printable(results.inputs.project)}: {variants}"
    if counts is not None:
        head += f"; {counts_sentence(counts, settings.averaging)}"
    head += f"; baseline {printable(results.baseline)}; bootstrap seed {settings.seed}"
    columns = ["variant", *(m.label for m in settings.columns), f"{primary.label} 95% CI",
               label(f"judged@{settings.judged_k}"), f"flips vs {printable(results.baseline)}", "p",
               "pairs/q"]  # fmt: skip
    rows = []
    for v in _ordered(results):
        stats = {s.metric: s for s in v.metrics}
        head_stat = stats[primary.name]
        interval = (
            "n/a" if head_stat.low is None or head_stat.high is None
            else f"[{_cell(head_stat.low)}, {_cell(head_stat.high)}]"
        )  # fmt: skip
        flips, p = "—", "—"
        if v.name != results.baseline:
            f = results.flip(results.baseline, v.name)
            flips, p = f"+{len(f.better)}/-{len(f.worse)}", p_text(f.p)
        pairs = v.costs.pairs_per_question
        rows.append([
            printable(v.name) + (" (external run)" if v.kind == "external" and v.config is None
                      and settings.kind == "pipeline" else ""),
            *(_cell(stats[m.name].mean) for m in settings.columns),
            interval,
            _cell(v.judged.mean if v.judged is not None else None),
            flips,
            p,
            "n/a" if pairs is None else f"{pairs:.1f}",
        ])  # fmt: skip
    interval_method = "seeded percentile bootstrap"
    if results.plan.expanded:
        interval_method = (f"percentile bootstrap (above {LARGE:,} questions, as here, read off "
                           "its Cornish-Fisher expansion)")  # fmt: skip
    tail = (
        f"{primary.label} interval: {interval_method} over questions; Judged@"
        f"{settings.judged_k}: the share of each top {settings.judged_k} that the judgments "
        f"grade at all, over the questions with a {defined_by(settings.kind)} that the run "
        "answers; flips: "
        "questions whose "
        f"{flips_label} is higher (+) or lower (-) than in "
        f"the baseline '{printable(results.baseline)}'; p: exact two-sided sign test over those "
        "questions."
    )
    # a run a lowered [runs] min_coverage lets through is said wherever it is used
    partial = [printable(f"warning: {w}") for w in partial_warnings(_ordered(results))]
    return "\n".join([head, "", *_layout(columns, rows), "", tail, *partial, *caveats])


def benchmark_json(results: Results) -> dict[str, Any]:
    """The same table as data: each variant's metrics with intervals and its flips."""
    settings = results.settings
    variants = []
    for v in _ordered(results):
        row: dict[str, Any] = {
            "name": v.name,
            "kind": v.kind,
            "metrics": {
                s.metric: {"mean": s.mean, "low": s.low, "high": s.high, "n": s.n}
                for s in v.metrics
            },  # fmt: skip
            "judged": None if v.judged is None else v.judged.mean,
            "pairs_per_question": v.costs.pairs_per_question,
        }
        if v.name != results.baseline:
            f = results.flip(results.baseline, v.name)
            row["flips"] = {"metric": f.metric, "better": list(f.better),
                            "worse": list(f.worse), "tied": f.tied, "p": f.p,
                            "holm_p": f.holm_p}  # fmt: skip
        variants.append(row)
    counts = results.inputs.counts
    return {
        "project": results.inputs.project,
        "seed": settings.seed,
        "primary": settings.compared[0].name,
        "flips_metric": settings.flips_metric,
        "baseline": results.baseline,
        "questions": None if counts is None else counts.to_dict(),
        "variants": variants,
    }
