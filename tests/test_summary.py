"""summary.md (`report.summary`): the report's decision in Markdown beside every site, and
`evidencedesk summary SITE` that prints it. Exact text for the demo and a generated runs-only
project; names that are Markdown, HTML, a table break or bidi controls stay inert text."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from evidencedesk import cli
from tests.generated_projects import generated

DEMO = (
    "# evidencedesk report — Kestrel Cycles (demo)\n"
    "\n"
    "**Did it get better?** 9 NO CLEAR CHANGE, 1 LEANS WORSE · **May it ship?** 6 GO, 2 REVIEW, 2 BLOCK  \n"
    "**Best lead:** `rerank overlap`, Δ MRR +0.056 \\[+0.000, +0.135\\] over 21 questions (NO CLEAR CHANGE)\n"
    "\n"
    "| Candidate | Verdict | Gate | Δ MRR [95 % interval] | Flips (MRR) |\n"
    "|---|---|---|---|---|\n"
    "| `rerank overlap` | NO CLEAR CHANGE | GO | +0.056 \\[+0.000, +0.135\\] n=21 | +3/−0 |\n"
    "| `rerank feature` | NO CLEAR CHANGE | GO | +0.048 \\[−0.008, +0.127\\] n=21 | +3/−1 |\n"
    "| `rerank blend` | NO CLEAR CHANGE | GO | +0.008 \\[+0.000, +0.024\\] n=21 | +1/−0 |\n"
    "| `pair cut to 8 words` | LEANS WORSE | BLOCK | −0.111 \\[−0.230, −0.024\\] n=21 | +0/−4 |\n"
    "| `no pre-filter` | NO CLEAR CHANGE | REVIEW | +0.000 \\[+0.000, +0.000\\] n=21 | +0/−0 |\n"
    "| `depth 3` | NO CLEAR CHANGE | GO | +0.032 \\[−0.016, +0.103\\] n=21 | +2/−1 |\n"
    "| `depth 20` | NO CLEAR CHANGE | GO | +0.048 \\[−0.008, +0.127\\] n=21 | +3/−1 |\n"
    "| `final 5` | NO CLEAR CHANGE | GO | +0.019 \\[+0.000, +0.048\\] n=21 | +2/−0 |\n"
    "| `dense first stage` | NO CLEAR CHANGE | BLOCK | +0.016 \\[−0.119, +0.167\\] n=21 | +4/−4 |\n"
    "| `dense: MiniLM` | NO CLEAR CHANGE | REVIEW | +0.040 \\[−0.175, +0.270\\] n=21 | +6/−7 |\n"
    "\n"
    "Verdict: did it get better than the baseline `hybrid` (the statistics)? Gate: may it ship (the release policy)? Flips: questions better / worse.\n"
    "\n"
    "## Gate: failing rules\n"
    "\n"
    "- `pair cut to 8 words` BLOCK: `min_recall` (R\\@3) 0.667, needs ≥ 0.750\n"
    "- `pair cut to 8 words` BLOCK: `min_pass_rate` 0.714, needs ≥ 0.800\n"
    "- `pair cut to 8 words` REVIEW: `max_drop` (R\\@3) drop 0.119 (0.786 → 0.667), needs drop ≤ 0.020\n"
    "- `pair cut to 8 words` REVIEW: `max_drop` (MRR within the final list) drop 0.111 (0.675 → 0.563), needs drop ≤ 0.020\n"
    "- `pair cut to 8 words` REVIEW: `review_on_mrr_flips` (MRR within the final list) worse for 4, better for 0, needs worse ≤ better\n"
    "- `no pre-filter` REVIEW: `max_drop` (R\\@3) drop 0.024 (0.786 → 0.762), needs drop ≤ 0.020\n"
    "- `dense first stage` BLOCK: `critical` 3 of 4 pass, needs all pass\n"
    "- `dense first stage` BLOCK: `min_recall` (R\\@3) 0.738, needs ≥ 0.750\n"
    "- `dense first stage` BLOCK: `min_pass_rate` 0.762, needs ≥ 0.800\n"
    "- `dense first stage` REVIEW: `max_drop` (R\\@3) drop 0.048 (0.786 → 0.738), needs drop ≤ 0.020\n"
    "- `dense: MiniLM` REVIEW: `review_on_mrr_flips` (MRR within the final list) worse for 7, better for 6, needs worse ≤ better\n"
    "\n"
    "## Warnings\n"
    "\n"
    "- `final 5`: Depth: final 5 returns up to 5 results a question, the baseline hybrid up to 3; MRR and nDCG\\@5 (exp gain) read past 3, so part of the difference is how far each list goes.\n"
    "\n"
    "## The full report\n"
    "\n"
    "The static site this file sits in: open `index.html` (it works offline); each candidate has its page, the gate its rules on `gate.html`. Seed 0, inputs `6c8273763281`.\n"
)

GENERATED_1 = (
    "# evidencedesk report — generated 1\n"
    "\n"
    "**Did it get better?** 1 BETTER, 1 PROMISING, 3 NO CLEAR CHANGE, 1 WORSE · **May it ship?** 3 GO, 3 REVIEW, 0 BLOCK  \n"
    "**Best lead:** `cand02`, Δ nDCG\\@10 (linear gain) +0.157 \\[+0.090, +0.225\\] over 34 questions (BETTER)\n"
    "\n"
    "| Candidate | Verdict | Gate | Δ nDCG\\@10 (linear gain) [95 % interval] | Flips (nDCG\\@10 (linear gain)) |\n"
    "|---|---|---|---|---|\n"
    "| `cand01` | NO CLEAR CHANGE | REVIEW | −0.042 \\[−0.122, +0.039\\] n=34 | +16/−18 |\n"
    "| `cand02` | BETTER | GO | +0.157 \\[+0.090, +0.225\\] n=34 | +25/−8 |\n"
    "| `cand03` | WORSE | REVIEW | −0.210 \\[−0.325, −0.088\\] n=34 | +8/−25 |\n"
    "| `cand04` | NO CLEAR CHANGE | GO | +0.037 \\[−0.048, +0.122\\] n=34 | +18/−16 |\n"
    "| `cand05` | PROMISING | GO | +0.093 \\[+0.001, +0.186\\] n=34 | +21/−13 |\n"
    "| `cand06` | NO CLEAR CHANGE | REVIEW | −0.064 \\[−0.156, +0.026\\] n=34 | +15/−19 |\n"
    "\n"
    "Verdict: did it get better than the baseline `base` (the statistics)? Gate: may it ship (the release policy)? Flips: questions better / worse.\n"
    "\n"
    "## Gate: failing rules\n"
    "\n"
    "- `cand01` REVIEW: `max_drop` (MRR\\@10 (reciprocal rank within the gate's top 10)) drop 0.077 (0.790 → 0.713), needs drop ≤ 0.050\n"
    "- `cand01` REVIEW: `review_on_mrr_flips` (MRR\\@10 (reciprocal rank within the gate's top 10)) worse for 12, better for 8, needs worse ≤ better\n"
    "- `cand03` REVIEW: `max_drop` (R\\@10) drop 0.210 (0.844 → 0.634), needs drop ≤ 0.050\n"
    "- `cand03` REVIEW: `max_drop` (MRR\\@10 (reciprocal rank within the gate's top 10)) drop 0.268 (0.790 → 0.522), needs drop ≤ 0.050\n"
    "- `cand03` REVIEW: `review_on_mrr_flips` (MRR\\@10 (reciprocal rank within the gate's top 10)) worse for 19, better for 6, needs worse ≤ better\n"
    "- `cand06` REVIEW: `review_on_mrr_flips` (MRR\\@10 (reciprocal rank within the gate's top 10)) worse for 9, better for 8, needs worse ≤ better\n"
    "\n"
    "## Warnings\n"
    "\n"
    "- queries.jsonl: 2 of its 40 queries have no judgment (q039, q040): left out, as trec\\_eval leaves them out\n"
    "- `cand02`: On condensed lists (each list's unjudged results removed before scoring), Δ nDCG\\@10 (linear gain) = +0.003 \\[−0.025, +0.031\\] over 34 questions: it does not move as on the full lists, so the holes in the judgments may decide this comparison; label the pairs of to-label.tsv before deciding\n"
    "- `cand03`: Partial coverage: the run cand03 answers 28 of the 38 judged queries (74 %); the others count as empty lists.\n"
    "- `cand05`: On condensed lists (each list's unjudged results removed before scoring), Δ nDCG\\@10 (linear gain) = +0.013 \\[−0.019, +0.047\\] over 34 questions: it does not move as on the full lists, so the holes in the judgments may decide this comparison; label the pairs of to-label.tsv before deciding\n"
    "\n"
    "## The full report\n"
    "\n"
    "The static site this file sits in: open `index.html` (it works offline); each candidate has its page, the gate its rules on `gate.html`. Seed 0, inputs `953a99f424e4`.\n"
)

# run names that are Markdown, HTML, a table break, code fences, mentions and an autolink, and
# bidi and zero-width characters (a file name can hold each)
HOSTILE = (
    "[click](javascript:alert(1))",
    "<img src=x onerror=alert(1)>",
    "a|b|c",
    "``tick`",
    "@octocat #1 *b* _i_ ~s~ www.evil.example",
    "\u202eevil\u200b",
)


def _rendered(markdown: str) -> str:
    """The summary as GitHub's Markdown reads it: CommonMark with tables and strikethrough."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


def test_the_demo_summary(demo_site: Path) -> None:
    assert (demo_site / "summary.md").read_text("utf-8") == "".join(DEMO)


def test_a_generated_runs_only_summary(generated_site: Callable[[int], Path]) -> None:
    """Project 1: six candidates, a gate policy, two queries without judgments, a run that
    answers part of the queries and two candidates whose condensed lists disagree."""
    assert (generated_site(1) / "summary.md").read_text("utf-8") == "".join(GENERATED_1)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated project 1 with its six candidate runs renamed to `HOSTILE`, built."""
    root = tmp_path_factory.mktemp("hostile")
    toml, _ = generated(root / "project", 1)
    runs = root / "project" / "runs"
    for i, name in enumerate(HOSTILE, start=1):
        (runs / f"cand{i:02d}.run").rename(runs / f"{name}.run")
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    return root / "site"


def test_hostile_names_stay_text(hostile_site: Path) -> None:
    text = (hostile_site / "summary.md").read_text("utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows == [
        "| `<img src=x onerror=alert(1)>` | BETTER | GO | +0.157 \\[+0.090, +0.225\\] n=34 | +25/−8 |",
        "| `@octocat #1 *b* _i_ ~s~ www.evil.example` | PROMISING | GO | +0.093 \\[+0.001, +0.186\\] n=34 | +21/−13 |",
        "| `[click](javascript:alert(1))` | NO CLEAR CHANGE | REVIEW | −0.042 \\[−0.122, +0.039\\] n=34 | +16/−18 |",
        "| ``` ``tick` ``` | NO CLEAR CHANGE | GO | +0.037 \\[−0.048, +0.122\\] n=34 | +18/−16 |",
        "| `a\\|b\\|c` | WORSE | REVIEW | −0.210 \\[−0.325, −0.088\\] n=34 | +8/−25 |",
        "| `\\u202eevil⟨U+200B⟩` | NO CLEAR CHANGE | REVIEW | −0.064 \\[−0.156, +0.026\\] n=34 | +15/−19 |",
    ]  # fmt: skip
    # a sentence holding a name: its markup escaped (a code span needs none outside a table)
    assert (
        "- `a|b|c`: Partial coverage: the run a\\|b\\|c answers 28 of the 38 judged queries "
        "(74 %); the others count as empty lists."
    ) in text.splitlines()
    assert "\u202e" not in text and "\u200b" not in text
    html = _rendered(text)
    for made in ("<a ", "<img", "<em>", "<strong>b", "<del>", "<s>", "<h1>1"):
        assert made not in html, made
    table = html.split("<tbody>")[1].split("</tbody>")[0]
    assert [row.count("<td>") for row in table.split("</tr>")[:-1]] == [5] * 6
    assert "<code>a|b|c</code>" in table and "<code>``tick`</code>" in table
    assert "<code>&lt;img src=x onerror=alert(1)&gt;</code>" in table


@pytest.mark.parametrize(
    ("words", "markdown"),
    [
        ("1. first", "1\\. first"),
        ("# heading", "\\# heading"),
        ("- item", "\\- item"),
        ("see http://evil.example", "see http\\://evil.example"),
        ("go to WWW.evil.example", "go to WWW\\.evil.example"),
        ("[a](b) <b> &amp; `c` *d* _e_ ~f~ !g @h | i", "\\[a\\](b) \\<b\\> \\&amp; \\`c\\` \\*d\\* "
         "\\_e\\_ \\~f\\~ \\!g \\@h \\| i"),
        ("two\nlines\tand\x1b[31m", "two\\\\nlines\\\\tand\\\\x1b\\[31m"),
    ],
)  # fmt: skip
def test_words_from_data_are_escaped(words: str, markdown: str) -> None:
    from evidencedesk.report._exports import _words

    assert _words(words, opens=True) == markdown
    rendered = _rendered(f"- {markdown}\n")
    assert rendered.startswith("<ul>\n<li>") and "<a " not in rendered and "<em>" not in rendered


def test_the_summary_command_prints_the_file(demo_site: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["summary", str(demo_site)], stdout=out, stderr=err) == 0
    assert out.getvalue() == "".join(DEMO) and err.getvalue() == ""


def test_the_summary_command_names_a_missing_summary(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["summary", str(tmp_path)], stdout=out, stderr=err) == 2
    assert out.getvalue() == ""
    assert err.getvalue() == (
        f"error: {tmp_path}/summary.md: expected a readable summary written by evidencedesk "
        "build, found No such file or directory\n"
    )


def test_the_audit_holds_the_summary_to_results_json(demo_site: Path, tmp_path: Path) -> None:
    import shutil

    from evidencedesk.report._audit import audit

    site = tmp_path / "site"
    shutil.copytree(demo_site, site)
    text = (site / "summary.md").read_text("utf-8")
    row = "| `pair cut to 8 words` | LEANS WORSE | BLOCK |"
    (site / "summary.md").write_text(text.replace(row, "| `pair cut to 8 words` | BETTER | GO |"),
                                     "utf-8")  # fmt: skip
    found, _, _ = audit(site)
    assert [d.line() for d in found] == [
        "summary.md: '| `pair cut to 8 words` | BETTER | GO | −0.111 \\\\[−0.230, −0.024\\\\] n=21 "
        "| +0/−4 |': results.json says | `pair cut to 8 words` | LEANS WORSE | BLOCK | −0.111 "
        "\\[−0.230, −0.024\\] n=21 | +0/−4 |"
    ]
    # a site built before summaries (its manifest lists no summary.md): nothing to hold
    (site / "summary.md").unlink()
    manifest = json.loads((site / "manifest.json").read_text("utf-8"))
    manifest["files"].remove("summary.md")
    (site / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    assert audit(site)[0] == []


def test_a_baseline_that_fails_the_policy_is_said_first(tmp_path: Path) -> None:
    """Every candidate BLOCKs when the baseline itself misses a floor: the summary says so
    before the candidates' failing rules, as the index and the gate page do, and the audit
    names the line when it is gone. By hand: the baseline ranks q1's and q2's one relevant
    document second of two, so its R@1 is 0.000 against the policy's 0.600 (the candidate's
    0.500: it BLOCKs too)."""
    from evidencedesk.report._audit import audit
    from tests.synthetic_runs import write_project

    qrels = {"q1": {"a": 2}, "q2": {"b": 2}}
    runs = {"base": {"q1": ["x", "a"], "q2": ["y", "b"]},
            "cand": {"q1": ["a", "x"], "q2": ["y", "b"]}}  # fmt: skip
    policy = {"k": 1, "min_recall": 0.6, "min_pass_rate": 0.0, "max_drop": 1.0,
              "review_on_mrr_flips": False}  # fmt: skip
    project = write_project(tmp_path / "p", qrels, runs, policy=policy)
    site = tmp_path / "site"
    out = io.StringIO()
    assert cli.main(["build", "--project", str(project), "--out", str(site)],
                    stdout=out, stderr=io.StringIO()) == 0  # fmt: skip
    # the terminal says it after the candidates' lines, and `benchmark --gate` before them
    plain = ("The baseline base itself fails the gate policy (BLOCK): R@1 0.000 is below the "
             "minimum 0.600. Every candidate is held to the same floors, so a candidate's BLOCK "
             "may be the baseline's, not the change's.")  # fmt: skip
    assert f"gate BLOCK  cand\n  {plain}\nopen " in out.getvalue()
    out = io.StringIO()
    cli.main(["benchmark", "--project", str(project), "--gate"], stdout=out, stderr=io.StringIO())
    assert f"vs the baseline run base\n  {plain}\n  BLOCK   cand\n" in out.getvalue()
    text = (site / "summary.md").read_text("utf-8")
    said = ("The baseline base itself fails the gate policy (BLOCK): R\\@1 0.000 is below the "
            "minimum 0.600. Every candidate is held to the same floors, so a candidate's BLOCK "
            "may be the baseline's, not the change's.")  # fmt: skip
    assert f"## Gate: failing rules\n\n{said}\n\n- `cand` BLOCK: `min_recall` (R\\@1) 0.500" in text
    assert audit(site)[0] == []
    (site / "summary.md").write_text(text.replace(f"{said}\n\n", ""), "utf-8")
    assert [d.line() for d in audit(site)[0]][0].startswith("summary.md: '- `cand` BLOCK:")
