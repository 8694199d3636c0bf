"""Tables for notebooks and papers: `Results.to_dataframe()` (pandas optional: a clear error
naming the extra when absent) and ``evidencedesk export SITE --format latex|markdown|csv``
(`report.tables`), with exact values on the demo."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.errors import MissingExtraError
from evidencedesk.report._exports import export_tables
from evidencedesk.results.types import _FRAME_COLUMNS, Results

DEMO_LATEX = (
    "\\begin{table}[t]\n"
    "\\centering\n"
    "\\caption{Each variant's mean over the questions with its 95 \\% bootstrap interval (baseline: hybrid; 21 questions decide).}\n"
    "\\label{tab:benchmark}\n"
    "\\begin{tabular}{lrrrr}\n"
    "\\toprule\n"
    "Variant & R@1 & R@3 & MRR & nDCG@5 (exp gain) \\\\\n"
    "\\midrule\n"
    "sparse & 0.500 [0.310, 0.690] & 0.690 [0.500, 0.857] & 0.651 [0.460, 0.825] & 0.556 [0.399, 0.705] \\\\\n"
    "dense & 0.524 [0.333, 0.714] & 0.738 [0.548, 0.905] & 0.690 [0.500, 0.857] & 0.636 [0.487, 0.768] \\\\\n"
    "hybrid & 0.500 [0.310, 0.690] & 0.786 [0.619, 0.952] & 0.675 [0.500, 0.841] & 0.629 [0.475, 0.768] \\\\\n"
    "hybrid + overlap & 0.548 [0.357, 0.738] & 0.833 [0.667, 0.976] & 0.730 [0.563, 0.881] & 0.676 [0.532, 0.803] \\\\\n"
    "hybrid + feature & 0.548 [0.357, 0.738] & 0.833 [0.667, 0.976] & 0.722 [0.556, 0.873] & 0.686 [0.541, 0.819] \\\\\n"
    "hybrid + blend & 0.500 [0.310, 0.690] & 0.786 [0.619, 0.952] & 0.683 [0.508, 0.849] & 0.639 [0.485, 0.777] \\\\\n"
    "hybrid + pair (8 words) & 0.381 [0.190, 0.571] & 0.667 [0.476, 0.857] & 0.563 [0.381, 0.738] & 0.532 [0.378, 0.677] \\\\\n"
    "bm25-title & 0.476 [0.262, 0.667] & 0.667 [0.476, 0.857] & 0.587 [0.389, 0.778] & 0.530 [0.355, 0.695] \\\\\n"
    "\\bottomrule\n"
    "\\end{tabular}\n"
    "\\end{table}\n"
    "\n"
    "\\begin{table}[t]\n"
    "\\centering\n"
    "\\caption{Each candidate against the baseline hybrid: the verdict (did it get better?), the gate (may it ship?), the primary metric's paired difference with its 95 \\% paired bootstrap interval, the flips (questions better / worse) and the Holm-adjusted randomization p. *: the randomization test's p, Holm-adjusted across the candidates, is below 0.05.}\n"
    "\\label{tab:candidates}\n"
    "\\begin{tabular}{lrrrrr}\n"
    "\\toprule\n"
    "Candidate & Verdict & Gate & $\\Delta$ MRR [95 \\% interval] & Flips (MRR) & Holm p \\\\\n"
    "\\midrule\n"
    "rerank overlap & NO CLEAR CHANGE & GO & +0.056 [+0.000, +0.135] & +3/$-$0 & 1.000 \\\\\n"
    "rerank feature & NO CLEAR CHANGE & GO & +0.048 [$-$0.008, +0.127] & +3/$-$1 & 1.000 \\\\\n"
    "rerank blend & NO CLEAR CHANGE & GO & +0.008 [+0.000, +0.024] & +1/$-$0 & 1.000 \\\\\n"
    "pair cut to 8 words & LEANS WORSE & BLOCK & $-$0.111 [$-$0.230, $-$0.024] & +0/$-$4 & 1.000 \\\\\n"
    "no pre-filter & NO CLEAR CHANGE & REVIEW & +0.000 [+0.000, +0.000] & +0/$-$0 & 1.000 \\\\\n"
    "depth 3 & NO CLEAR CHANGE & GO & +0.032 [$-$0.016, +0.103] & +2/$-$1 & 1.000 \\\\\n"
    "depth 20 & NO CLEAR CHANGE & GO & +0.048 [$-$0.008, +0.127] & +3/$-$1 & 1.000 \\\\\n"
    "final 5 & NO CLEAR CHANGE & GO & +0.019 [+0.000, +0.048] & +2/$-$0 & 1.000 \\\\\n"
    "dense first stage & NO CLEAR CHANGE & BLOCK & +0.016 [$-$0.119, +0.167] & +4/$-$4 & 1.000 \\\\\n"
    "dense: MiniLM & NO CLEAR CHANGE & REVIEW & +0.040 [$-$0.175, +0.270] & +6/$-$7 & 1.000 \\\\\n"
    "\\bottomrule\n"
    "\\end{tabular}\n"
    "\\end{table}\n"
)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_the_demo_s_latex_tables(demo_site: Path) -> None:
    """booktabs, the captions saying what the mark means; "−" as a math minus, "%" escaped."""
    assert _run("export", str(demo_site), "--format", "latex") == (0, "".join(DEMO_LATEX), "")


def test_the_demo_s_mean_rows(demo_results: Results) -> None:
    rows = demo_results.mean_rows()
    assert len(rows) == (len(demo_results.variants) + len(demo_results.candidates)) * 4
    assert rows[0] == ("sparse", "variant", "recall@1", 0.5, pytest.approx(0.30952380952380953),
                       pytest.approx(0.6904761904761905), 21, 3, None, None, None)  # fmt: skip
    hybrid = [r for r in rows if r[0] == "hybrid"]
    assert [r[1] for r in hybrid] == ["baseline"] * 4
    assert hybrid[2][2:8] == ("mrr", pytest.approx(0.6746031746031745), pytest.approx(0.5),
                              pytest.approx(0.8412698412698412), 21, 3)  # fmt: skip
    cut = next(r for r in rows if r[0] == "pair cut to 8 words" and r[2] == "mrr")
    assert cut[1] == "candidate"
    assert [round(x, 3) for x in cut[8:]] == [-0.111, -0.230, -0.024]  # as the summary says


def test_the_csv_is_the_frame_s_rows(demo_site: Path, demo_results: Results) -> None:
    code, out, _ = _run("export", str(demo_site), "--format", "csv")
    assert code == 0
    table = list(csv.reader(io.StringIO(out)))
    assert table[0] == list(_FRAME_COLUMNS)
    assert len(table) == 1 + len(demo_results.mean_rows())
    assert all(len(row) == len(_FRAME_COLUMNS) for row in table)
    assert table[1] == ["sparse", "variant", "recall@1", "0.5", "0.30952380952380953",
                        "0.6904761904761905", "21", "3", "", "", ""]  # fmt: skip


def test_names_cannot_run_in_a_spreadsheet_nor_become_markdown(demo_results: Results) -> None:
    from dataclasses import replace

    hostile = ('=HYPERLINK("http://x","y")', "[a](b) | <img>")
    variants = tuple(replace(v, name=hostile[0]) if v.name == "sparse" else v
                     for v in demo_results.variants)  # fmt: skip
    candidates = tuple(replace(c, name=hostile[1]) if i == 0 else c
                       for i, c in enumerate(demo_results.candidates))  # fmt: skip
    results = replace(demo_results, variants=variants, candidates=candidates)
    table = list(csv.reader(io.StringIO(export_tables(results, "csv"))))
    assert table[1][0] == '\'=HYPERLINK("http://x","y")'
    assert not any(cell.startswith(("=", "+", "@")) for row in table for cell in row[:2])
    markdown = export_tables(results, "markdown")
    assert '| `=HYPERLINK("http://x","y")` | 0.500 [0.310, 0.690] |' in markdown
    assert "| `[a](b) \\| <img>` | NO CLEAR CHANGE | GO |" in markdown
    latex = export_tables(results, "latex")
    assert "[a](b) | $<$img$>$ & NO CLEAR CHANGE & GO" in latex


def test_names_with_tabs_and_line_ends_stay_one_cell(demo_results: Results) -> None:
    from dataclasses import replace

    variants = tuple(replace(v, name="two\nlines\there") if v.name == "sparse" else v
                     for v in demo_results.variants)  # fmt: skip
    candidates = tuple(replace(c, name="-cand\r\n\nx") if i == 0 else c
                       for i, c in enumerate(demo_results.candidates))  # fmt: skip
    results = replace(demo_results, variants=variants, candidates=candidates)
    text = export_tables(results, "csv")
    assert text.count("\n") == 1 + len(results.mean_rows())  # one line per row
    names = [row[0] for row in csv.reader(io.StringIO(text))]
    assert names[1] == "two lines here" and "'-cand x" in names
    latex = export_tables(results, "latex").splitlines()
    assert any(line.startswith("two lines here & ") for line in latex)
    assert any(line.startswith("-cand x & ") for line in latex)
    inside = [line for block in "\n".join(latex).split("\\begin{tabular}")[1:]
              for line in block.split("\\end{tabular}")[0].splitlines()[1:]]  # fmt: skip
    assert len(inside) == 2 * 4 + len(results.variants) + len(results.candidates)
    assert "" not in inside  # no blank line inside a table


def test_to_dataframe_names_the_extra_without_pandas(
    demo_results: Results, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas fails
    for call, what in ((demo_results.to_dataframe, "Results.to_dataframe()"),
                       (demo_results.questions_to_dataframe, "Results.questions_to_dataframe()")):  # fmt: skip
        with pytest.raises(MissingExtraError) as caught:
            call()
        assert str(caught.value) == (
            f"{what} needs the optional extra 'pandas', and pandas is not installed; install it "
            "with: pip install 'evidencedesk[pandas]'"
        )


def test_to_dataframe_with_pandas(demo_results: Results) -> None:
    pandas = pytest.importorskip("pandas")
    frame = demo_results.to_dataframe()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == list(_FRAME_COLUMNS)
    assert frame.shape == (len(demo_results.mean_rows()), len(_FRAME_COLUMNS))
    row = frame[(frame.run == "hybrid") & (frame.metric == "mrr")].iloc[0]
    assert (row.role, round(row["mean"], 3), int(row.n)) == ("baseline", 0.675, 21)
    questions = demo_results.questions_to_dataframe()
    assert list(questions.columns) == ["run", "question", "metric", "value"]


def test_an_unknown_format_lists_the_choices(demo_site: Path) -> None:
    code, out, err = _run("export", str(demo_site), "--format", "xlsx")
    assert (code, out) == (2, "")
    assert err == (
        "error: argument --format: invalid choice: 'xlsx' (choose from 'latex', 'markdown', "
        "'csv') (see evidencedesk export --help)\n"
    )


def test_a_folder_without_results_is_one_line(tmp_path: Path) -> None:
    assert _run("export", str(tmp_path)) == (
        2, "", f"error: {tmp_path}/results.json: expected a readable results.json, found No such "
        "file or directory\n")  # fmt: skip
