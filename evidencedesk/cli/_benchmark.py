"""``evidencedesk benchmark`` (and ``python -m evidencedesk.retrieval.benchmark``).

``[--project PATH] [--gate] [--seed N] [--json] [--policy PATH] [--baseline PATH]
[--save-baseline] [--gate-variant NAME] [--tune [SETTINGS]]``. Without ``--project`` it
benchmarks the demo; a pipeline project gets the built-in variants over its own documents, a runs-only project a table
of its TREC runs (`benchmark_runs`); ``--gate`` ends with the release gate's level (GO, REVIEW or BLOCK).

``--gate`` decides the build's candidates (the build's evaluation: `_gate_candidates`), so that
it agrees with ``build --fail-on block``; ``--gate-variant NAME`` gates one variant instead.

Exit status: 0 for GO and REVIEW (and without ``--gate``), 1 for a BLOCK, 2 for bad input (one
``error: …`` line on stderr, no traceback), 141 when the reader of the output closed the pipe
before the table was written (as ``head`` does; no traceback).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evidencedesk._inert import inert_json, printable
from evidencedesk.baseline import _save_baseline, _save_run_baseline, load_baseline
from evidencedesk.cli import _BAD_INPUT, _add_project_argument
from evidencedesk.errors import EvidencedeskError
from evidencedesk.files._project_file import ProjectKind
from evidencedesk.gate import (
    GateLevel,
    GatePolicy,
    _decide_gate,
    _gate_result,
    _GateInput,
    _shape,
    load_policy,
)
from evidencedesk.paths import _ROOT
from evidencedesk.results._inputs import Project, find_project
from evidencedesk.retrieval.labels import Label

if TYPE_CHECKING:
    from evidencedesk.cli import _Streams
    from evidencedesk.results._evaluate import Evaluation
    from evidencedesk.results.types import Results

# the one-line summary of `evidencedesk benchmark` in the command list
HELP = "print the benchmark table (and the gate)"
# what `evidencedesk benchmark --help` says the command does
DESCRIPTION = (
    "Benchmark retrieval on a project's labelled questions and print one table: for the demo or "
    "a pipeline project the built-in variants (sparse, dense, hybrid, hybrid + each stand-in "
    "reranker, an 8-word cut) with recall, MRR and its seeded 95% interval, nDCG and flips "
    "against the first row; for a runs-only project one row per TREC run against its baseline "
    "run. --gate gates every candidate as 'build --fail-on' does (the same policy and saved "
    "baseline) and ends with the worst gate level."
)
# the exit statuses `evidencedesk benchmark --help` lists, one line each
EXIT = (
    "0    the table was printed; with --gate no candidate (or --gate-variant) was BLOCK",
    "1    --gate and a BLOCK (as build --fail-on block exits)",
    _BAD_INPUT,
    "141  the reader closed the pipe early (as head -1 does); nothing else went wrong",
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of `evidencedesk benchmark` (--gate, --seed, --json, ...) to its parser."""
    from evidencedesk.cli._process import add_tune_argument

    _add_project_argument(p)
    p.add_argument("--gate", action="store_true",
                   help="gate every candidate as build --fail-on does; end with the worst gate level")  # fmt: skip
    p.add_argument(
        "--seed", type=int, default=None, help="bootstrap seed (default: the project's, 0)"
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument(
        "--policy", type=Path, default=None, help="gate policy JSON (default: the project's)"
    )
    p.add_argument(
        "--baseline", type=Path, default=None, help="saved baseline JSON (default: the project's)"
    )
    p.add_argument(
        "--save-baseline",
        action="store_true",
        help="write the baseline run (hybrid, Config(); or a runs-only project's baseline run) "
        "to --baseline before gating",
    )
    p.add_argument(
        "--gate-variant",
        default=None,
        metavar="NAME",
        help="gate this one variant (or run) instead of the candidates, against the saved baseline",
    )
    add_tune_argument(p)


def _shown(path: Path) -> str:
    """A path as printed: relative to the project root when inside it (same output anywhere)."""
    try:
        return path.resolve().relative_to(_ROOT.resolve()).as_posix()
    except ValueError:
        return str(path)


def _gate_inputs(args: argparse.Namespace, project: Project) -> tuple[Path | None, Path | None]:
    """The policy (None without --gate) and the saved-baseline path, from flags or project.

    A project without a saved baseline is gated without one (its floors and critical questions
    still apply; the drop checks need a baseline), as the report does.
    """
    policy = args.policy or project.policy
    baseline = args.baseline or project.baseline
    if args.gate and policy is None:
        raise EvidencedeskError(
            f"{project.path}: expected a [gate].policy for --gate (or --policy PATH), found none"
        )
    if args.save_baseline and baseline is None:
        raise EvidencedeskError(
            f"{project.path}: expected a [gate].baseline to save to (or --baseline PATH), "
            "found none"
        )
    return (policy if args.gate else None), baseline


def _pick(name: str | None, default: str, valid: Sequence[str]) -> str:
    chosen = name or default
    if chosen not in valid:
        raise EvidencedeskError(
            f"--gate-variant: expected one of {', '.join(valid)}, found {chosen!r}"
        )
    return chosen


@dataclass(frozen=True)
class _Gated:
    """What --save-baseline and --gate need of either kind of project: no pipeline `Config` is
    made up for a TREC run (its judged lists are shaped for the gate directly)."""

    kind: ProjectKind
    variant: str  # the variant (or run) the gate judges
    shaped: Callable[[int], _GateInput]  # its final lists shaped for the gate, recall at k
    save: Callable[[Path], object]  # writes the baseline variant (or run) as the saved baseline
    saved: str  # what was saved, as printed


def _silent(_: str) -> None:
    """The evaluation's progress: the benchmark prints only its table."""


def work(
    args: argparse.Namespace, announce: Callable[[str], None] = _silent
) -> tuple[dict[str, Any], str, int]:
    """Do the work; return (JSON payload, text, exit status). Raises EvidencedeskError.
    `announce` is told the line naming the project as soon as it is found (before any input
    can be refused); the text starts after it."""
    from evidencedesk.report._assemble import meta
    from evidencedesk.report._exports import benchmark_json, benchmark_text
    from evidencedesk.results._evaluate import evaluation

    project, first_line = find_project(args.project, saving=args.save_baseline)
    announce(first_line)
    seed = args.seed if args.seed is not None else project.seed
    policy_path, baseline_path = _gate_inputs(args, project)
    if args.save_baseline:
        # the baseline about to be replaced is not read: stale (other labels) or missing, it is
        # what --save-baseline refreshes
        project = dataclasses.replace(project, baseline=None, _cache=project._cache)
    # --gate without --gate-variant decides the build's candidates: the build's own evaluation
    # (its gate stage included) with the same policy and saved baseline, so that the two agree
    candidates = policy_path is not None and args.gate_variant is None
    gated_project = dataclasses.replace(project, policy=policy_path, baseline=baseline_path)
    found = evaluation(gated_project if candidates and not args.save_baseline else project,
                       seed, (), _silent,
                       benchmark_only=not candidates or args.save_baseline)  # fmt: skip
    results, labels = found.results, found.labels
    policy = load_policy(policy_path, labels) if policy_path is not None else None
    payload = benchmark_json(results)
    # the site's caveats of what the variants are (the toy or MiniLM, the stand-ins, tuning)
    caveats = tuple(f"note: {c.text}" for c in meta(results).caveats if c.key != "labels")
    text = benchmark_text(results, caveats)
    if candidates:
        if args.save_baseline:  # save first (below), then gate against what was saved
            payload, text, _ = _finish(args, payload, text, _saver(found, project, args, labels),
                                       labels, None, baseline_path)  # fmt: skip
            found = evaluation(gated_project, seed, (), _silent)
        if baseline_path is not None:  # a --baseline that is missing or made on other labels
            load_baseline(baseline_path, labels, found.results.settings.kind)
        return _gate_candidates(found.results, payload, text)
    return _finish(args, payload, text, _saver(found, project, args, labels, policy), labels,
                   policy, baseline_path)  # fmt: skip


def _saver(
    found: Evaluation, project: Project, args: argparse.Namespace, labels: Sequence[Label],
    policy: GatePolicy | None = None,
) -> _Gated:  # fmt: skip
    """What --save-baseline writes and --gate --gate-variant judges, for either kind."""
    results = found.results
    names = [v.name for v in results.variants]
    gate_variant = _pick(args.gate_variant, results.baseline, names)
    if results.settings.kind == "pipeline":
        gated, base = found.runs[gate_variant], found.runs[results.baseline]
        return _Gated("pipeline", gate_variant, lambda k: _gate_result(gated, k),
                      lambda path: _save_baseline(path, base, labels), "hybrid, Config()")  # fmt: skip
    # The gate's final list is the policy's top k; a baseline saved without --gate is cut the same
    # way, so that a later --gate compares like with like (10, as the report does, without one).
    policy_file = args.policy or project.policy
    sizing = policy or (load_policy(policy_file, labels) if policy_file is not None else None)
    k = sizing.k if sizing is not None else 10
    judged = found.judged[gate_variant]  # the gate reads its top k ("top": `_shape` cuts it)
    reference = results.baseline
    return _Gated("runs", gate_variant, lambda at: _shape(judged, k, at, "top"),
                  lambda path: _save_run_baseline(path, reference, found.judged[reference], k,
                                                 labels), f"the run {reference!r}")  # fmt: skip


def _gate_candidates(
    results: Results, payload: dict[str, Any], text: str
) -> tuple[dict[str, Any], str, int]:
    """--gate: every candidate of the build, gated as the build gates it (`results.stages.gate_outcome`);
    exit 1 when one is BLOCK, as ``build --fail-on block`` does."""
    from evidencedesk.report._words import baseline_fails

    cands = results.candidates
    names = sorted({c.gate.baseline for c in cands if c.gate.baseline})
    versus = ", ".join(names) or "no baseline (no saved baseline file and no baseline run)"
    lines = [f"gate: {len(cands)} candidate(s), as the build gates them, vs {versus}"]
    own = baseline_fails(results, "")  # the baseline failing the policy's floors, said first
    lines += [f"  {own}."] if own else []
    for c in cands:
        lines.append(f"  {c.gate.level:<6}  {c.name}")
        lines += [f"          {check.line()}" for check in c.gate.checks]
    worst = GateLevel.worst(c.gate.level for c in cands)  # --gate ends with the worst level
    if not cands:
        lines.append("  (no candidates: nothing for build --fail-on to fail on)")
    lines.append(f"GATE: {worst}")
    payload["gate"] = {
        "level": worst,
        "baseline": names,  # what the candidates were compared with (one name, or none)
        "baseline_fails": own,  # "" when the baseline passes the policy's floors
        "candidates": [
            {"name": c.name, "level": c.gate.level,
             "lines": [check.line() for check in c.gate.checks]}
            for c in cands
        ],
    }  # fmt: skip
    return payload, text + "\n\n" + "\n".join(lines), 1 if worst is GateLevel.BLOCK else 0


def _finish(
    args: argparse.Namespace,
    payload: dict[str, Any],
    text: str,
    gated: _Gated,
    labels: Sequence[Label],
    policy: GatePolicy | None,
    baseline_path: Path | None,
) -> tuple[dict[str, Any], str, int]:
    """--save-baseline and --gate, shared by both kinds of project."""
    if args.save_baseline and baseline_path is not None:
        gated.save(baseline_path)
        text += f"\n\nbaseline saved: {_shown(baseline_path)} ({gated.saved})"
        payload["baseline_saved"] = _shown(baseline_path)
    status = 0
    if policy is not None:
        saved = (
            load_baseline(baseline_path, labels, gated.kind) if baseline_path is not None else None
        )
        reference = saved.reference() if saved is not None else None
        result = _decide_gate(policy, gated.shaped(policy.k), reference)
        payload["gate"] = {"variant": gated.variant, **result.to_dict()}
        versus = (
            "no saved baseline" if baseline_path is None else f"baseline {_shown(baseline_path)}"
        )
        text += f"\n\ngate: {gated.variant} vs {versus}\n{result.text()}"
        status = 1 if result.level is GateLevel.BLOCK else 0
    return payload, text, status


def run(args: argparse.Namespace, streams: _Streams) -> int:
    """Print the table (names from data made inert: `evidencedesk._inert`); 141 (128 + SIGPIPE,
    the shell's status) when the reader has gone or stdout was closed. A failure is raised for
    `cli.main`'s one map (an OSError writing --save-baseline names the file and the reason)."""
    from evidencedesk.cli._process import Tuning

    tuning = Tuning.chosen(args)
    tuning.start()

    def announce(line: str) -> None:  # the project's line, before any input is refused
        if not args.json:
            streams.out.write(printable(line) + "\n")

    with tuning.paused():
        payload, text, status = work(args, announce)
    if args.json:
        out = inert_json(json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        out = "\n".join(printable(line) for line in text.split("\n"))
    streams.out.write(out + "\n")
    streams.out.flush()
    return 141 if streams.out.broken else status
