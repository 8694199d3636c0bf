"""The metric registry: every metric evidencedesk computes, declared once, as data.

A `Measure` says what a metric is called here (its canonical form and its label), what it
takes (a cut-off, a gain), what it means, how a question it cannot score is treated, and what
trec_eval, ir_measures and ranx call it. Everything that reads or shows a metric name comes from
these declarations: the parser (`read_metric`, `split_metric`, `canonical`), the labels of the
site (`label`), the methods page's definitions (`definitions`), the README's metric table
(`reference_table`, generated) and docs/metrics.md's list of names (checked by a test).

Reading a name needs no numpy and no judged list, so input validation can check the names a
project reports (``[report] metrics``) without importing the metrics themselves.

Names are read case-insensitively, white space and quotes ignored, so trec_eval's ``P_10``,
ir_measures' ``P@10`` and evidencedesk's ``precision@10`` are one metric. Where a tool's name is
spelled like one of evidencedesk's own forms but means something else (ir_measures' and ranx's
``nDCG@10`` and every tool's ``ndcg`` use linear gain; evidencedesk's default gain is
exponential), evidencedesk's form wins, the label names the gain, and `shadowed` lists the
tool names that do not read as their tool means them.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from evidencedesk.errors import CutoffError, UnknownNameError

# the largest cut-off, gate k, depth or final size a file may name: results per question (a run
# holds far fewer; 10**23 would overflow the metric engine's arrays)
MAX_CUTOFF = 1_000_000

# the default `[questions] relevance`: relevant = grade >= 2 (here, not beside the project file's
# other defaults, so that judging a run does not import the project file's parser)
DEFAULT_RELEVANCE = 2

__all__ = [
    "DEFAULT_RELEVANCE",
    "DIAGNOSTIC",
    "MEASURES",
    "METRIC_FORMS",
    "Measure",
    "Metric",
    "canonical",
    "definition",
    "definitions",
    "label",
    "per_question_label",
    "read_metric",
    "reading_note",
    "reads_whole_list",
    "reference_table",
    "shadowed",
    "split_metric",
    "suggestions",
]

# the rule for a question with no relevant judgment, shared by the metrics it applies to
_UNDEFINED = (
    "a question with no relevant judgment is undefined (None), not 0: it is left out of the "
    'mean and counted as left out; [report] averaging = "trec_eval" counts it as trec_eval '
    "does: 0, but nDCG's grades below the relevance threshold keep their gain"
)
# the gain and discount of nDCG's exponential form
_EXP_GAIN = "gain 2^grade − 1, discount log2(1 + rank)"
# the gain and discount of nDCG's linear form (`:linear`)
_LINEAR_GAIN = "gain = grade, discount log2(1 + rank)"
# trec_eval and ir_measures give every judged grade its gain; ranx drops the ones below its
# relevance level
_IDEAL = (
    "trec_eval and ir_measures give every judged grade its gain, in the list and in the ideal "
    "list, as here; ranx leaves out the grades below its relevance level (the two differ when "
    "the relevance threshold is above 1)"
)
# how the tools' nDCG differs from the exponential form
_EXP_TOOLS = (
    "trec_eval's ndcg and ndcg_cut, ir_measures' nDCG and ranx's ndcg use linear gain "
    "(:linear); ranx's ndcg_burges is this one"
)


@dataclass(frozen=True)
class Measure:
    """One metric, declared once. Strings holding ``{k}`` stand for every cut-off k >= 1.

    Its parameters: a cut-off k when `cutoff` (``@k`` in its names), the nDCG `gain`, and, for
    every quality metric, the relevance threshold, which is the project's (``[questions]
    relevance``, `Judged.relevant`) and never part of a name.

    `kind` is what the metric engine computes (with `gain` for nDCG); `form` the canonical name
    (what results.json and `[report] metrics` keep); `aliases` further spellings evidencedesk
    accepts; `trec_eval`, `ir_measures`, `ranx` the names those tools give the same numbers
    (None: the tool has no such metric) — accepted too, unless `shadowed`. `reads` is how much
    of a ranked list the metric needs: ``"top k"``, ``"first relevant"`` (MRR reads down to the
    first relevant result) or ``"whole"`` (every graded result).
    """

    kind: str
    form: str
    label: str
    definition: str
    cutoff: bool = False
    gain: str | None = None
    aliases: tuple[str, ...] = ()
    trec_eval: str | None = None
    ir_measures: str | None = None
    ranx: str | None = None
    convention: str = ""  # where the tools' conventions differ, in words
    undefined: str = _UNDEFINED
    question_label: str | None = None  # the per-question value's name (MRR's: reciprocal rank)
    reads: str = "top k"
    diagnostic: bool = False  # never a quality metric ([report] metrics refuses it)

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(n for _, n in _named(self))


# every quality metric the kit computes, declared once with its names in each tool
MEASURES: tuple[Measure, ...] = (
    Measure(
        "recall",
        "recall@{k}",
        "R@{k}",
        cutoff=True,
        definition="relevant results in the top {k} ÷ R, every relevant document the judgments "
        "hold",
        aliases=("recall.{k}",),
        trec_eval="recall_{k}",
        ir_measures="R@{k}",
        ranx="recall@{k}",
    ),
    Measure(
        "precision",
        "precision@{k}",
        "P@{k}",
        cutoff=True,
        definition="relevant results in the top {k} ÷ {k} (a short list still divides by {k})",
        aliases=("P.{k}",),
        trec_eval="P_{k}",
        ir_measures="P@{k}",
        ranx="precision@{k}",
    ),
    Measure(
        "hit",
        "hit@{k}",
        "hit@{k}",
        cutoff=True,
        definition="1 when a relevant result is in the top {k}, else 0 (success)",
        aliases=("success.{k}",),
        trec_eval="success_{k}",
        ir_measures="Success@{k}",
        ranx="hit_rate@{k}",
    ),
    Measure(
        "mrr",
        "mrr",
        "MRR",
        reads="first relevant",
        question_label="reciprocal rank",
        definition="1 ÷ the rank of the first relevant result, wherever it is in the list; 0 "
        "when none is returned. MRR is its mean over questions",
        trec_eval="recip_rank",
        ir_measures="RR",
        ranx="mrr",
    ),
    Measure(
        "mrr",
        "mrr@{k}",
        "MRR@{k} (cut at {k})",
        cutoff=True,
        question_label="reciprocal rank (cut at {k})",
        definition="1 ÷ the rank of the first relevant result when it is in the top {k}, else 0 "
        "(MS MARCO's MRR@10)",
        convention="trec_eval's recip_rank has no cut-off (a first relevant result below rank "
        "{k} still counts; trec_eval -M {k} gives this one); ir_measures' RR@{k} and ranx's "
        "mrr@{k} cut at {k}, as here",
        ir_measures="RR@{k}",
        ranx="mrr@{k}",
    ),
    Measure(
        "map",
        "map",
        "MAP",
        reads="whole",
        question_label="AP",
        definition="average precision (AP): the precision at the rank of each relevant result "
        "returned, summed, ÷ R (a relevant document never returned adds 0). MAP is its mean",
        trec_eval="map",
        ir_measures="AP",
        ranx="map",
    ),
    Measure(
        "map",
        "map@{k}",
        "MAP@{k}",
        cutoff=True,
        question_label="AP@{k}",
        definition="AP of the top {k}: the precision at each relevant result within the top "
        "{k}, summed, ÷ R",
        convention="÷ R, every relevant document, as trec_eval's map_cut, ir_measures' AP@k and "
        "ranx's map@k divide; code that divides by min(R, {k}) reports larger values",
        aliases=("map_cut.{k}",),
        trec_eval="map_cut_{k}",
        ir_measures="AP@{k}",
        ranx="map@{k}",
    ),
    Measure(
        "rprec",
        "rprec",
        "R-prec",
        reads="whole",
        definition="relevant results in the top R ÷ R: the precision at rank R, where precision "
        "and recall are equal",
        aliases=("R-prec",),
        trec_eval="Rprec",
        ir_measures="Rprec",
        ranx="r-precision",
    ),
    Measure(
        "ndcg",
        "ndcg@{k}",
        "nDCG@{k} (exp gain)",
        cutoff=True,
        gain="exp",
        definition="DCG of the top {k} ÷ DCG of the ideal list (every judged document, best "
        f"first) cut at {{k}}; {_EXP_GAIN}",
        convention=_EXP_TOOLS,
        aliases=("ndcg@{k}:exp",),
        ir_measures="nDCG(dcg='exp-log2')@{k}",
        ranx="ndcg_burges@{k}",
    ),
    Measure(
        "ndcg",
        "ndcg@{k}:linear",
        "nDCG@{k} (linear gain)",
        cutoff=True,
        gain="linear",
        definition="DCG of the top {k} ÷ DCG of the ideal list (every judged document, best "
        f"first) cut at {{k}}; {_LINEAR_GAIN}",
        convention=_IDEAL,
        aliases=("ndcg_cut.{k}",),
        trec_eval="ndcg_cut_{k}",
        ir_measures="nDCG@{k}",
        ranx="ndcg@{k}",
    ),
    Measure(
        "ndcg",
        "ndcg",
        "nDCG (exp gain)",
        gain="exp",
        reads="whole",
        definition="DCG of the whole list ÷ DCG of the whole ideal list (every judged document, "
        f"best first); {_EXP_GAIN}",
        convention=_EXP_TOOLS,
        aliases=("ndcg:exp",),
        ir_measures="nDCG(dcg='exp-log2')",
        ranx="ndcg_burges",
    ),
    Measure(
        "ndcg",
        "ndcg:linear",
        "nDCG (linear gain)",
        gain="linear",
        reads="whole",
        definition="DCG of the whole list ÷ DCG of the whole ideal list (every judged document, "
        f"best first); {_LINEAR_GAIN}",
        convention=_IDEAL,
        trec_eval="ndcg",
        ir_measures="nDCG",
        ranx="ndcg",
    ),
    Measure(
        "bpref",
        "bpref",
        "bpref",
        reads="whole",
        definition="binary preference (Buckley & Voorhees 2004), built for incomplete "
        "judgments: each relevant result returned scores 1 − (judged non-relevant results "
        "ranked above it, at most R) ÷ min(R, N), summed, ÷ R; N = the judged non-relevant "
        "documents (graded 0 up to the relevance threshold). Unjudged results count neither way",
        convention="as in trec_eval, a result graded below 0 (TREC's −2) counts neither way and "
        "is not in N (trec_eval reads a negative grade as in the pool, not judged)",
        trec_eval="bpref",
        ir_measures="Bpref",
        ranx="bpref",
    ),
    Measure(
        "judged",
        "judged@{k}",
        "Judged@{k}",
        cutoff=True,
        diagnostic=True,
        definition="the share of the top {k} that the judgments grade at all, over min({k}, the "
        "list's length); not a quality metric: it says how far the others can be trusted",
        undefined="undefined where the question has no relevant judgment or the list is empty",
        ir_measures="Judged@{k}",
    ),
)
# kinds the engine computes that are never reported as quality metrics
DIAGNOSTIC = tuple(dict.fromkeys(m.kind for m in MEASURES if m.diagnostic))
# the canonical forms of the quality metrics, as error messages list them
METRIC_FORMS = tuple(m.form.replace("{k}", "k") for m in MEASURES if not m.diagnostic)


# -- reading a name ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """A metric, read: the one metric type of the kit. Its canonical name (`canonical`) and its
    display label (every nDCG names its gain, MRR@k its cut-off) are its fields, as results.json
    keeps them; everything else (its declaration, cut-off, kind, gain) is read back from the
    name. `read_metric` makes one from any accepted spelling."""

    name: str  # "mrr", "recall@3", "ndcg@10:linear", "map"
    label: str  # "MRR", "R@3", "nDCG@10 (linear gain)", "MAP"

    @classmethod
    def of(cls, name: object) -> Metric:
        """The metric any declared name stands for (``AP``, ``P_10``, ``ndcg_cut_10``, …)."""
        return read_metric(name)

    @property
    def _read(self) -> tuple[Measure, int | None]:
        found = _declared(self.name)
        if found is None:
            raise UnknownNameError("metric", self.name, METRIC_FORMS, suggestions(self.name))
        return found

    @property
    def measure(self) -> Measure:
        """Its declaration in `MEASURES`."""
        return self._read[0]

    @property
    def k(self) -> int | None:
        """Its cut-off; None for a metric without one (the whole list)."""
        return self._read[1]

    @property
    def kind(self) -> str:
        return self.measure.kind

    @property
    def gain(self) -> str | None:
        """The nDCG gain ("exp" or "linear"); None for other metrics."""
        return self.measure.gain

    @property
    def canonical(self) -> str:
        return _fill(self.measure.form, self.k)

    @property
    def question_label(self) -> str:
        return _fill(self.measure.question_label or self.measure.label, self.k)

    @property
    def definition(self) -> str:
        return _fill(self.measure.definition, self.k)

    @property
    def convention(self) -> str:
        return _fill(self.measure.convention, self.k)

    @property
    def tool_names(self) -> tuple[tuple[str, str], ...]:
        """(tool, name) of each tool that has this metric, with this cut-off."""
        return tuple((tool, _fill(n, self.k)) for tool, n in _named(self.measure))


def _fill(text: str, k: int | None) -> str:
    """A declaration's text with its cut-off filled in (left as ``{k}`` without one)."""
    return text.replace("{k}", str(k)) if k is not None else text


def _made(m: Measure, k: int | None) -> Metric:
    """The metric of a declaration and a cut-off."""
    return Metric(_fill(m.form, k), _fill(m.label, k))


def _normal(text: str) -> str:
    """A name as the registry compares it: lower case, no white space, no quotes."""
    return re.sub(r"[\s'\"]", "", text).lower()


def _pattern(spelling: str) -> re.Pattern[str]:
    return re.compile(re.escape(_normal(spelling)).replace(r"\{k\}", "([1-9][0-9]*)") + "$")


def _spellings(m: Measure) -> tuple[tuple[int, str], ...]:
    """(precedence, spelling) of every name the measure answers to: its own form first, then its
    aliases, then the tools' names (0 wins a tie between two measures)."""
    return ((0, m.form), *((1, a) for a in m.aliases), *((2, n) for n in m.tool_names))


def _named(m: Measure) -> tuple[tuple[str, str], ...]:
    """(tool, name) of each tool that has the metric."""
    named = (("trec_eval", m.trec_eval), ("ir_measures", m.ir_measures), ("ranx", m.ranx))
    return tuple((tool, n) for tool, n in named if n is not None)


_TABLE = tuple(
    (rank, spelling, _pattern(spelling), m) for m in MEASURES for rank, spelling in _spellings(m)
)


@functools.lru_cache(maxsize=4096)
def _lookup(text: str) -> tuple[Measure, int | None] | None:
    found: list[tuple[int, Measure, int | None]] = []
    for rank, _, pattern, m in _TABLE:
        hit = pattern.match(text)
        if hit is not None:
            found.append((rank, m, int(hit.group(1)) if m.cutoff else None))
    if not found:
        return None
    _, m, k = min(found, key=lambda f: f[0])
    return m, k


@functools.lru_cache(maxsize=4096)
def _declared(name: str) -> tuple[Measure, int | None] | None:
    """(declaration, cut-off) of a name as written: what a `Metric` reads back from its name
    on every property, so kept per name."""
    return _lookup(_normal(name))


@functools.lru_cache(maxsize=1)
def shadowed() -> tuple[tuple[str, str], ...]:
    """(form, tool name) of each tool name spelled like another metric's own form or alias:
    evidencedesk reads that spelling as its own metric (ir_measures' ``nDCG@k`` is
    ``ndcg@k``, exp gain, here; theirs is ``ndcg@k:linear``)."""
    out = []
    for m in MEASURES:
        for name in m.tool_names:
            probe = _normal(name.replace("{k}", "10"))
            owner = _lookup(probe)
            if owner is not None and owner[0] is not m:
                out.append((m.form, name))
    return tuple(dict.fromkeys(out))


def suggestions(name: object, n: int = 3) -> tuple[str, ...]:
    """The canonical names closest to `name` (difflib over every accepted spelling), each with
    the spelling that matched when it is another (``ndcg@10:linear (ndcg_cut_10)``); a number
    in `name` is kept as the cut-off (10 when it has none)."""
    text = _normal(name) if isinstance(name, str) else ""
    number = re.search(r"[1-9][0-9]*", text)
    k = number.group(0) if number else "10"
    spelled: dict[str, str] = {}
    for _, spelling, _, _ in _TABLE:
        shown = spelling.replace("{k}", k)
        spelled.setdefault(_normal(shown), shown)
    close = difflib.get_close_matches(text, list(spelled), n=3 * n, cutoff=0.6)
    out: dict[str, str] = {}
    for spelling in close:
        found = read_metric(spelled[spelling])
        plain = _normal(found.canonical) in close  # the canonical name is as close: say only it
        out.setdefault(found.canonical, found.canonical if plain else
                       f"{found.canonical} ({spelled[spelling]})")  # fmt: skip
    return tuple(out.values())[:n]


def read_metric(name: object) -> Metric:
    """The declared metric a name stands for (case, white space and quotes ignored): any
    measure's form, alias or tool name (``map``, ``AP``, ``P_10``, ``ndcg_cut_10``, ``RR@10``,
    …); anything else is an `UnknownNameError` listing the forms and the closest names."""
    found = _lookup(_normal(name)) if isinstance(name, str) else None
    if found is None:
        raise UnknownNameError("metric", name, METRIC_FORMS, suggestions(name))
    if found[1] is not None and found[1] > MAX_CUTOFF:
        raise CutoffError(
            f"expected a metric cut-off from 1 to {MAX_CUTOFF}, found {found[1]} in {str(name)[:60]!r}"
        )
    return _made(*found)


def split_metric(name: object) -> tuple[str, int | None, str]:
    """(kind, cut-off, nDCG gain) of a metric name, as the metric engine takes them (the gain is
    "exp" for a metric without one); an unknown name is an `UnknownNameError`."""
    found = read_metric(name)
    return found.kind, found.k, found.gain or "exp"


def canonical(name: str) -> str:
    """The canonical form of a metric name: ``AP`` -> ``map``, ``ndcg_cut_10`` ->
    ``ndcg@10:linear``, ``P@10`` -> ``precision@10``, ``ndcg@5:exp`` -> ``ndcg@5``."""
    return read_metric(name).canonical


def reading_note(name: str) -> str | None:
    """One line for a name that evidencedesk reads as another metric than a tool spelling it so
    means (see `shadowed`); None for every other name. ``ndcg`` -> "'ndcg' reads as nDCG (exp
    gain); trec_eval's, ir_measures' and ranx's ndcg is nDCG (linear gain), written ndcg:linear
    here"."""
    found = read_metric(name)
    text, spelled = _normal(name), name.strip()
    for m in MEASURES:
        if m is found.measure:
            continue
        hits = [(tool, hit) for tool, n in _named(m) if (hit := _pattern(n).match(text))]
        if hits:
            theirs = _made(m, int(hits[0][1].group(1)) if m.cutoff else None)
            whose = [t + ("'" if t.endswith("s") else "'s") for t, _ in hits]
            who = ", ".join(whose[:-1]) + (" and " if len(whose) > 1 else "") + whose[-1]
            return (
                f"{spelled!r} reads as {found.label}; {who} {spelled} is {theirs.label}, "
                f"written {theirs.canonical} here"
            )
    return None


def label(name: str) -> str:
    """A metric's display label: ``mrr`` -> "MRR", ``precision@10`` -> "P@10",
    ``ndcg@10:linear`` -> "nDCG@10 (linear gain)" (every nDCG names its gain), ``mrr@10`` ->
    "MRR@10 (cut at 10)" (tools differ on the cut-off)."""
    return read_metric(name).label


def per_question_label(name: str) -> str:
    """What one question's value is called: MRR's is the reciprocal rank, MAP's AP."""
    return read_metric(name).question_label


def definition(name: str) -> tuple[str, str]:
    """(label, text) of a metric for the methods page: its definition with its cut-off, the
    names other tools give it, and where their conventions differ."""
    return definitions([name])[0]


def definitions(names: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(term, text) per declared metric among `names`, in first-use order: one entry per
    measure, its cut-offs named together (``R@1, R@3``: "… the top k … (k = 1, 3)")."""
    groups: dict[Measure, list[Metric]] = {}
    for n in names:
        read = read_metric(n)
        if read not in groups.setdefault(read.measure, []):
            groups[read.measure].append(read)
    out = []
    for m, cuts in groups.items():
        k = cuts[0].k if len(cuts) == 1 else None  # several cut-offs: the declaration's "k"
        text = _fill(m.definition, k).replace("{k}", "k")
        if len(cuts) > 1:
            text += f" (k = {', '.join(str(c.k) for c in cuts)})"
        named = ((tool, _fill(n, k)) for tool, n in _named(m))
        tools = ", ".join(f"{tool} {n.replace('{k}', 'k')}" for tool, n in named)
        text += f". Other tools: {tools}." if tools else "."
        convention = _fill(m.convention, k)
        if convention:
            text += f" Conventions: {convention.replace('{k}', 'k')}."
        if m.undefined != _UNDEFINED:  # the common rule has its own entry on the methods page
            text += f" It is {m.undefined.replace('{k}', 'k')}."
        out.append((", ".join(c.label for c in cuts), text))
    return tuple(out)


def reads_whole_list(names: Iterable[str]) -> bool:
    """Whether any of the metrics reads a ranked list past a cut-off and past its first relevant
    result (AP, R-precision, nDCG without a cut-off, bpref): a long run judged for them keeps
    each list through its last graded result (`trec_judge.judge_trec_run`'s ``graded``)."""
    return any(read_metric(n).measure.reads == "whole" for n in names)


# -- the README's table -----------------------------------------------------------------------


def _cell(m: Measure, name: str | None) -> str:
    if name is None:
        return "—"
    shown = f"`{name.replace('{k}', 'k')}`"
    return f"{shown} ¹" if (m.form, name) in shadowed() else shown


def reference_table() -> str:
    """The README's metric table, in Markdown: every declared metric, its label and the names
    trec_eval, ir_measures and ranx give it (a test holds the README to it)."""
    rows = [
        "| evidencedesk | label | trec_eval | ir_measures | ranx |",
        "|---|---|---|---|---|",
    ]
    for m in MEASURES:
        also = [f"`{a.replace('{k}', 'k')}`" for a in m.aliases if ":" in a]  # the gain spelled
        name = f"`{m.form.replace('{k}', 'k')}`" + (f" (= {', '.join(also)})" if also else "")
        shown = m.label.replace("{k}", "k") + (" (diagnostic)" if m.diagnostic else "")
        rows.append(f"| {name} | {shown} | {_cell(m, m.trec_eval)} | "
                    f"{_cell(m, m.ir_measures)} | {_cell(m, m.ranx)} |")  # fmt: skip
    rows.append("")
    rows.append(
        "¹ spelled like another row's evidencedesk name, which it reads as: write this row's "
        "own name."
    )
    return "\n".join(rows)
