"""The site model -> ``summary.md``: the report's decision in Markdown, for a CI job summary or a
pull-request comment (docs/ci.md).

It says what the index's first screen says -- the bottom line, one row per candidate (verdict,
gate, the primary metric's difference with its interval, flips), each failing gate rule, the
coverage and judgment warnings -- and where the full site is. Every word comes from the site
model (made from the Results by `report.assemble`), so the summary computes nothing and says
nothing a page does not; `evidencedesk audit` holds it to results.json line by line
(`summary_disagreements`).

Markdown from data must stay text wherever the summary is read (GitHub, GitLab, a terminal): a
name or id stands alone in a code span (`md_code`: no link, image, HTML, emphasis, mention or
issue reference is read inside one, and a ``|`` is escaped where it would end a table cell); a
sentence has every character that opens or ends markup backslash-escaped (`_words`), which
CommonMark reads as that character and nothing else. Control and bidirectional
characters are shown as visible escapes in both (`inert.printable`), and a name's invisible
characters too (`inert.visible`).
"""

from __future__ import annotations

import re
from pathlib import Path

from evidencedesk.errors import AuditError
from evidencedesk.files.text import read_text
from evidencedesk.inert import printable, visible
from evidencedesk.report.assemble import present
from evidencedesk.report.model import BottomLine, SiteModel
from evidencedesk.results.types import Results

SUMMARY = "summary.md"  # the summary's file in the site
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


def md_code(text: str, cell: bool = False) -> str:
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
            f"No candidate changes to decide on: only the baseline {md_code(model.meta.baseline)}."
        ]
    verdicts = ", ".join(f"{v.count} {_words(v.key)}" for v in b.verdicts.by_verdict)
    gate = (
        f"{b.gate.go} GO, {b.gate.review} REVIEW, {b.gate.block} BLOCK"
        if b.gate.checked
        else "no gate policy, nothing checked"
    )
    line = f"**Did it get better?** {verdicts} · **May it ship?** {gate}"
    lead = (
        "**Best lead:** none"
        if b.lead is None
        else f"**Best lead:** {md_code(b.lead.candidate)}, {_words(b.lead.delta)} over {b.lead.n} "
        f"questions ({_words(b.lead.verdict)})"
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
        delta = f"{r.delta.text} {r.delta.interval_text} n={r.delta.n}"
        lines.append(
            f"| {md_code(r.name, cell=True)} | {_words(r.verdict)} | {gate} | {_words(delta)} "
            f"| {_words(r.flips)} |"
        )
    lines.append("")
    lines.append(
        f"Verdict: did it get better than the baseline {md_code(model.meta.baseline)} (the "
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
                f"- {md_code(c.name)} {_words(r.status)}: `{r.rule}`{metric} "
                f"{_words(r.observed)}, needs {_words(r.threshold)}"
            )
    return ["", "## Gate: failing rules", "", *(lines or ["None: every evaluated rule passes."])]


def _warnings(model: SiteModel) -> list[str]:
    lines = [f"- {_words(n, opens=True)}" for n in model.meta.notices]
    for c in model.candidates:
        found = [*c.warnings]
        if c.judged is not None and c.judged.caveat:
            found.append(c.judged.caveat)
        if c.condensed is not None and not c.condensed.agrees:
            found.append(c.condensed.words)
        lines += [f"- {md_code(c.name)}: {_words(w)}" for w in found]
    lines += [f"- {md_code(n.name)}: {_words(n.reason)}" for n in model.not_run]
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
        f"The static site this file sits in: open `index.html` (it works offline); "
        f"each candidate has its page, the gate its rules on `gate.html`. "
        f"Seed {model.meta.seed}, inputs `{model.meta.input_hash[:12]}`.",
    ]
    return "\n".join(lines) + "\n"


def summary_disagreements(site: Path, results: Results) -> list[tuple[str, str, str]]:
    """``summary.md`` held to `results` (`evidencedesk audit`): each line that is not the line
    the Results give, as (file, line, the line results.json gives); none for a site without a
    summary (one built before summaries were written)."""
    path = site / SUMMARY
    if not path.exists():
        return []
    shown = read_text(path, AuditError, "summary").splitlines()
    expected = summary_markdown(present(results)).splitlines()
    found = [(SUMMARY, a, b) for a, b in zip(shown, expected, strict=False) if a != b]
    if len(shown) != len(expected):
        found.append((SUMMARY, f"({len(shown)} lines)", f"{len(expected)} lines"))
    return found
