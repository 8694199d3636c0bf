"""The written recommendation of a candidate change: its headline and its Markdown bullets, each
sentence with a number a typed claim (`report.claims`, worded by `report.words`).

The headline starts with the verdict's words (the badge's: results.verdicts), names every
metric that moved and which way, says how the primary metric's flips stand when it did not move,
and names any critical question that got worse (the gate decides those). The bullets give the
flips, what this label set needs, the interval, what it would take, the cost, the two answers
(verdict and gate) and the gate's lines; an unjudged caveat and the condensed lists where the
judgments have holes. A third-decimal difference is never named a winner.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from evidencedesk.report.model import Recommendation
from evidencedesk.results import verdicts as v
from evidencedesk.results.types import CandidateResult

__all__ = ["category", "md_escape", "recommend"]

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&\"'=:])")
# a page's claim recorder (`report.claims`): the words of a claim kind for a results.json source
Say = Callable[..., str]


def md_escape(text: str) -> str:
    """Text made inert inside generated Markdown (one line, punctuation escaped)."""
    return _MD_PUNCT.sub(r"\\\1", " ".join(str(text).split()))


def category(verdict: str) -> str:
    """The verdict as a CSS-safe word: "NO CLEAR CHANGE" -> "no-clear-change"."""
    return verdict.lower().replace(" ", "-")


# verdicts whose recommendation warns that a third-decimal difference is not a result
_CAUTIOUS = (v.NO_CLEAR_CHANGE, v.PROMISING, v.MIXED, v.LEANS_WORSE)


def recommend(
    say: Say, source: str, cand: CandidateResult, risk: tuple[str, str] | None = None,
    to_label: bool = False,
) -> Recommendation:  # fmt: skip
    """The candidate at `source` (``candidates[i]``): every sentence with a number said through
    `say` (a page's `Claims.say`); `risk`: what the config's scope change risks (headline clause,
    paragraph); `to_label`: the site has a to-label.tsv to point at."""
    line = say("headline", source)
    if risk is not None:
        line += f" {risk[0]}"
    caveat = say("unjudged", source)
    if caveat:
        line += f" {caveat}."
    lines = [f"- {md_escape(say('flips', source))}.", f"- {md_escape(say('needed', source))}."]
    if risk is not None:
        lines.append(f"- {risk[1]}")  # Markdown already: its question links
    lines.append(f"- {md_escape(say('interval', source))}.")
    take = say("take", source)
    if take:
        lines.append(f"- {md_escape(take)}.")
    lines += [
        f"- {md_escape(say('cost', source))}.",
        f"- {md_escape(say('verdict_line', source))}.",
    ]
    for j, _ in enumerate(cand.gate.checks):
        lines.append(f"  - {md_escape(say('gate_line', f'{source}.gate.checks[{j}]'))}")
    if caveat:
        where = (" The unjudged pairs worth labelling first are in [to-label.tsv](data/to-label.tsv)"
                 " ([what to label next](to-label.html)); grade them, append them to the qrels and"
                 " rebuild.") if to_label else ""  # fmt: skip
        lines.append(f"- Label before deciding: the comparison reads unjudged documents as not "
                     f"relevant.{where}")  # fmt: skip
    condensed = say("condensed", source)
    if condensed:
        lines.append(f"- {md_escape(condensed)}.")
    if cand.decision.verdict in _CAUTIOUS:
        lines += [
            "",
            "Differences in the third decimal of a mean are not a result; decide on the flips "
            "and the interval, and on cost when quality is the same.",
        ]
    return Recommendation(category(cand.decision.verdict), line, "\n".join(lines) + "\n",
                          cand.decision.verdict)  # fmt: skip
