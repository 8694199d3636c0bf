"""``evidencedesk audit SITE``: every sentence of a built site held to its results.json.

The site writes each page's typed claims to ``claims.json`` (`report.claims`). The audit reads
results.json back into Results and, independently of the site model that wrote the pages:

1. re-derives every claim's words from the Results (`report.words.derive`) and compares them
   with the claim's and with the page's text: a changed number, label, interval, zero clause,
   flips count, p-value, verdict or gate line is a disagreement;
2. finds every number, p-value, flips count and verdict phrase in the pages' prose (and every
   flips count in their tables) that no claim of that page backs: a sentence made up outside
   the claims is a disagreement;
3. re-derives the decisions the claims report: each candidate's verdict from its comparisons
   (`results.verdicts.decide`), the Holm adjustment across candidates, each comparison's flips
   and sign test from the per-question values the Results hold, each gate verdict from its
   lines, and the counts from the questions.

`audit(site)` returns the disagreements, one line each (page, sentence, what results.json
says); the command prints them and exits 1, or prints one ``ok:`` line and exits 0. The page
that compares with an earlier report (since.html) reads that report too and is left out.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from evidencedesk.errors import InputError
from evidencedesk.report.words import derive
from evidencedesk.results import verdicts
from evidencedesk.results.jsonio import load
from evidencedesk.results.types import CandidateResult, Results
from evidencedesk.retrieval.stats import TIE, holm, sign_test_p
from evidencedesk.structured import parse_json
from evidencedesk.textfile import read_text

__all__ = ["Disagreement", "audit"]

CLAIMS = "claims.json"
LEFT_OUT = ("since.html",)  # compares with another report's results
SKIPPED = {"script", "style", "nav", "footer", "pre", "code", "svg", "template"}
BLOCKS = {"p", "li", "dd", "dt", "h1", "h2", "h3", "h4", "caption", "figcaption", "summary",
          "blockquote", "td", "th", "div", "section", "aside", "header"}  # fmt: skip
# what a sentence may say only inside a claim
DECIMAL = re.compile(r"[+−-]?\d+\.\d{2,}")
P_VALUE = re.compile(r"\bp\s*(?:=|<|>|≤|≥)\s*\d")
FLIPS = re.compile(r"\+\d+/[−-]\d+")
PHRASES = re.compile(
    r"not proven|\bleans? (?:better|worse|no way)|did not move|useful context|"
    r"\bgrades? \d+ (?:is|=|means)\b|\bp\s*=\s*0\.000\b",
    re.IGNORECASE,
)


class AuditError(InputError):
    """A site the audit cannot read (no results.json or claims.json)."""


@dataclass(frozen=True)
class Disagreement:
    page: str
    sentence: str
    expected: str

    def line(self) -> str:
        return f"{self.page}: {self.sentence!r}: results.json says {self.expected}"


class _Text(HTMLParser):
    """A page's visible text: prose blocks and table cells, outside scripts, nav and footer."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.prose: list[str] = []
        self.cells: list[str] = []
        self._skip = 0
        self._table = 0
        self._buffer: list[str] = []

    def _flush(self) -> None:
        text = " ".join("".join(self._buffer).split())
        if text:
            (self.cells if self._table else self.prose).append(text)
        self._buffer = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED:
            self._skip += 1
        if tag == "table":
            self._flush()
            self._table += 1
        if tag in BLOCKS or tag == "br":
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCKS:
            self._flush()
        if tag == "table":
            self._flush()
            self._table = max(0, self._table - 1)
        if tag in SKIPPED:
            self._skip = max(0, self._skip - 1)

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._buffer.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def page_text(path: Path) -> tuple[list[str], list[str]]:
    parser = _Text()
    parser.feed(read_text(path, AuditError, "page"))
    parser.close()
    return parser.prose, parser.cells


def _claims(site: Path) -> dict[str, list[dict[str, Any]]]:
    path = site / CLAIMS
    data = parse_json(read_text(path, AuditError, "claims file"), path, AuditError)
    if not isinstance(data, dict):
        raise AuditError(path, "expected an object of page -> claims, found something else")
    return data


def _masked(text: str, said: list[str]) -> str:
    """`text` with every occurrence of what the claims said blanked out (longest first)."""
    for words in sorted(said, key=len, reverse=True):
        if words:
            text = text.replace(words, " " * len(words))
    return text


def _around(text: str, start: int) -> str:
    a = max(0, text.rfind(". ", 0, start) + 2 if text.rfind(". ", 0, start) >= 0 else 0)
    b = text.find(". ", start)
    return text[a : b + 1 if b >= 0 else len(text)].strip()[:200]


def _unbacked(page: str, prose: list[str], cells: list[str], said: list[str]) -> list[Disagreement]:
    out = []
    for block in prose:
        masked = _masked(block, said)
        for pattern in (DECIMAL, P_VALUE, FLIPS, PHRASES):
            hit = pattern.search(masked)
            if hit is not None:
                out.append(Disagreement(page, _around(block, hit.start()),
                                        "nothing: no claim backs this sentence"))  # fmt: skip
                break
    for cell in cells:
        masked = _masked(cell, said)
        hit = FLIPS.search(masked) or PHRASES.search(masked)
        if hit is not None:
            out.append(Disagreement(page, cell[:200], "nothing: no claim backs this table cell"))
    return out


def _claim_disagreements(results: Results, page: str, claims: list[dict[str, Any]],
                         text: str) -> list[Disagreement]:  # fmt: skip
    out = []
    for claim in claims:
        said = str(claim.get("text", ""))
        try:
            expected = derive(results, str(claim.get("kind")), str(claim.get("source", "")),
                              dict(claim.get("args") or {}))  # fmt: skip
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            out.append(Disagreement(page, said, f"no such claim ({exc})"))
            continue
        if expected != said:
            out.append(Disagreement(page, said, repr(expected)))
        elif said and said not in text:
            out.append(Disagreement(page, said, f"{said!r}, which the page does not say as written"))
    return out


def _values(results: Results, c: CandidateResult, metric: str) -> dict[str, float | None] | None:
    lists = c.ranked(results)
    if not lists:
        return None
    return {r.question: r.values.get(metric) for r in lists}


def _decisions(results: Results) -> list[Disagreement]:
    """The decisions re-derived from the numbers results.json holds."""
    out = []
    cands = results.candidates
    base = {r.question: r for r in results.variant(results.baseline).lists}
    critical = results.policy.critical if results.policy is not None else ()
    for i, c in enumerate(cands):
        where = f"results.json candidates[{i}] ({c.name})"
        redone = verdicts.judge(c.comparisons, c.decision.primary, critical)
        if redone.verdict != c.decision.verdict:
            out.append(Disagreement(where, f"verdict {c.decision.verdict}",
                                    f"the rules give {redone.verdict}"))  # fmt: skip
        levels = {g.level for g in c.gate.checks}
        gate = "BLOCK" if "BLOCK" in levels else "REVIEW" if "REVIEW" in levels else "GO"
        if c.gate.evaluated and gate != c.gate.verdict:
            out.append(Disagreement(where, f"gate {c.gate.verdict}", f"its lines give {gate}"))
        for cmp in c.comparisons:
            mine = _values(results, c, cmp.metric)
            if mine is None:
                continue
            better: list[str] = []
            worse: list[str] = []
            for q, r in base.items():
                x, y = r.values.get(cmp.metric), mine.get(q)
                if x is None or y is None or abs(y - x) <= TIE:
                    continue
                (better if y > x else worse).append(q)
            if sorted(better) != sorted(cmp.better) or sorted(worse) != sorted(cmp.worse):
                out.append(Disagreement(where, f"flips on {cmp.metric} +{len(cmp.better)}/−"
                                        f"{len(cmp.worse)}", f"the per-question values give "
                                        f"+{len(better)}/−{len(worse)}"))  # fmt: skip
            if abs(sign_test_p(len(cmp.better), len(cmp.worse)) - cmp.sign_p) > 1e-12:
                out.append(Disagreement(where, f"sign-test p {cmp.sign_p} on {cmp.metric}",
                                        f"{sign_test_p(len(cmp.better), len(cmp.worse))}"))  # fmt: skip
    for metric in (m.name for m in results.settings.metrics):
        raw = {c.name: c.comparison(metric).randomization_p for c in cands}
        if not raw:
            continue
        adjusted = holm(raw)
        for c in cands:
            if abs(adjusted[c.name] - c.comparison(metric).holm_p) > 1e-12:
                out.append(Disagreement(f"results.json ({c.name})",
                                        f"Holm-adjusted p {c.comparison(metric).holm_p} on {metric}",
                                        f"{adjusted[c.name]}"))  # fmt: skip
    counts = results.inputs.counts
    if counts is not None and counts.judged != len(results.inputs.questions):
        out.append(Disagreement("results.json inputs.counts", f"{counts.judged} judged",
                                f"{len(results.inputs.questions)} questions"))  # fmt: skip
    return out


def audit(site: Path) -> tuple[list[Disagreement], int, int]:
    """The disagreements of the site at `site` with its results.json, and how many claims on
    how many pages were checked. Raises an EvidencedeskError for a site it cannot read."""
    results = load(site / "results.json")
    claims = _claims(site)
    found: list[Disagreement] = []
    checked = 0
    for page in sorted(p.name for p in site.glob("*.html")):
        if page in LEFT_OUT:
            continue
        prose, cells = page_text(site / page)
        mine = claims.get(page, [])
        text = html.unescape(" ".join([*prose, *cells]))
        found += _claim_disagreements(results, page, mine, text)
        found += _unbacked(page, prose, cells, [str(c.get("text", "")) for c in mine])
        checked += len(mine)
    missing = sorted(set(claims) - {p.name for p in site.glob("*.html")})
    found += [Disagreement(page, "(the page)", "claims for a page the site does not have")
              for page in missing]  # fmt: skip
    found += _decisions(results)
    return found, checked, len(claims)
