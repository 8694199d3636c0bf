"""The real demo build, end to end (issue 2's first page and issue 6's site tests)."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.paths import DATA
from evidencedesk.retrieval.catalog import load_catalog
from tests.conftest import DemoBuild
from tests.page_text import visible
from tests.test_bad_input import snapshot


def build(out: Path, *extra: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = cli.main(["build", "--out", str(out), *extra], stdout=stdout, stderr=stderr)
    return status, stdout.getvalue(), stderr.getvalue()


def test_progress_lines_and_summary(demo_build: DemoBuild) -> None:
    out, stdout = demo_build.site, demo_build.stdout
    stages = [line.split()[0] for line in stdout.splitlines() if re.match(r"^  \S.* s$", line)]
    assert stages[:7] == [
        "load",
        "benchmark",
        "sizing",
        "ablations",
        "citation",
        "evidence",
        "gate",
    ]
    assert re.search(r"^wrote \d+ pages \(\d", stdout, re.M)
    assert f"open {out.resolve() / 'index.html'}" in stdout
    # each candidate: its verdict (the badge), then the gate's word
    assert re.search(r"^  LEANS WORSE +gate BLOCK +pair cut to 8 words$", stdout, re.M)


def test_the_document_page_lists_every_document_and_the_index_the_dataset(
    demo_site: Path,
) -> None:
    out = demo_site
    index = (out / "index.html").read_text(encoding="utf-8")
    documents = (out / "documents.html").read_text(encoding="utf-8")
    for doc in load_catalog().documents:
        assert f'<code class="id" title="{doc.id}">{doc.id}</code>' in documents
        assert doc.id not in index  # the index links the list, it does not embed it
    assert '<a href="documents.html">20 documents</a>' in index
    assert "24 questions, all judged, 21 with a relevant judgment (grade ≥ 2)" in index
    assert "relevant = grade ≥ 2" in index


def test_every_page_is_written(demo_site: Path) -> None:
    out = demo_site
    names = {p.name for p in out.iterdir()}
    for page in (
        "index",
        "benchmark",
        "flips",
        "slices",
        "sizing",
        "ablations",
        "citations",
        "evidence",
        "methods",
    ):
        assert f"{page}.html" in names
    assert len([n for n in names if n.startswith("candidate-")]) == 10
    assert len([n for n in names if n.startswith("question-")]) == 24
    assert (out / "assets" / "plotly.min.js").stat().st_size > 1_000_000
    assert (out / "manifest.json").is_file()


def test_the_external_run_is_a_variant_everywhere(demo_site: Path) -> None:
    out = demo_site
    benchmark = (out / "benchmark.html").read_text(encoding="utf-8")
    flips = (out / "flips.html").read_text(encoding="utf-8")
    slices = (out / "slices.html").read_text(encoding="utf-8")
    assert re.search(r'<tr id="v-bm25-title">\s*<th scope="row">bm25-title</th>', benchmark)
    assert "external run" in benchmark
    assert flips.count("bm25-title") >= 2 and slices.count("bm25-title") >= 2


def test_pages_name_the_toy_and_the_stand_ins(demo_site: Path) -> None:
    """The overview and the benchmark name both; every candidate page the toy (the hybrid
    baseline's dense half), and the lexical stand-ins only where the candidate reranks with one."""
    out = demo_site
    for page in ["index.html", "benchmark.html"]:
        text = (out / page).read_text(encoding="utf-8")
        assert "toy" in text and "stand-in" in text, page
    lexical = {"rerank-overlap", "rerank-feature", "rerank-blend", "pair-cut-to-8-words",
               "depth-3", "depth-20"}  # fmt: skip
    pages = sorted(out.glob("candidate-*.html"))
    assert len(pages) == 10
    for path in pages:
        text = path.read_text(encoding="utf-8")
        name = path.stem.removeprefix("candidate-").rsplit("-", 1)[0]
        assert "toy" in text and ("stand-in" in text) == (name in lexical), name


def test_same_seed_same_bytes_and_project_file_equals_default(
    demo_site: Path, tmp_path: Path
) -> None:
    out = demo_site
    assert build(tmp_path / "same", "--seed", "0")[0] == 0  # what the demo build was given
    assert snapshot(tmp_path / "same") == snapshot(out)
    typed = str(DATA / "evidencedesk.toml")
    status, _, _ = build(tmp_path / "again", "--project", typed)
    assert status == 0
    # the same site, but for the reproduce command, which names the project as it was typed
    before, after = snapshot(out), snapshot(tmp_path / "again")
    assert before.keys() == after.keys()
    default = b"python -m evidencedesk.report build --seed 0"
    named = f"python -m evidencedesk.report build --project {typed} --seed 0".encode()
    for name in before.keys() - {"manifest.json", "results.json"}:  # they hash / hold it
        assert after[name].replace(named, default) == before[name], name
    import json

    results = [json.loads(t["results.json"]) for t in (before, after)]
    assert results[0]["inputs"]["command"] == ["--seed", "0"]
    assert results[1]["inputs"]["command"] == ["--project", typed, "--seed", "0"]
    results[1]["inputs"]["command"] = ["--seed", "0"]
    assert results[0] == results[1]


def test_another_seed_changes_the_intervals_only(demo_site: Path, tmp_path: Path) -> None:
    out = demo_site
    assert build(tmp_path / "s1", "--seed", "1")[0] == 0
    before, after = snapshot(out), snapshot(tmp_path / "s1")
    assert before.keys() == after.keys()
    assert before["index.html"] != after["index.html"]


def test_a_corrupt_labels_file_leaves_the_previous_site_untouched(
    demo_site: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"  # a copy: the refused build must leave this previous site alone
    shutil.copytree(demo_site, out)
    before = snapshot(out)
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    with (data / "labels.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"id": "zz01", "question": "broken"\n')
    status, _, stderr = build(out, "--project", str(data / "evidencedesk.toml"))
    assert status == 2
    assert (
        stderr
        == f"error: {data / 'labels.jsonl'}:25: expected a JSON object, found invalid JSON (Expecting ',' delimiter)\n"
    )
    assert snapshot(out) == before


@pytest.mark.parametrize(("fail_on", "status"), [("never", 0), ("block", 1), ("review", 1)])
def test_fail_on(tmp_path: Path, fail_on: str, status: int) -> None:
    assert build(tmp_path / "s", "--fail-on", fail_on)[0] == status


def test_without_the_demo_data_the_message_says_where_it_looked(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, EVIDENCEDESK_ROOT=str(tmp_path / "nowhere"))
    done = subprocess.run(
        [sys.executable, "-m", "evidencedesk.report", "build", "--out", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"error: the demo project not found at {tmp_path / 'nowhere' / 'data' / 'evidencedesk.toml'}; "
        f"EVIDENCEDESK_ROOT={tmp_path / 'nowhere'} is set; unset it to use the installed copy\n"
    )
    assert not (tmp_path / "site").exists()


def test_every_link_of_the_demo_site_resolves(demo_site: Path) -> None:
    from tests.test_render import check_links

    out = demo_site
    assert check_links(out) > 500
    for path in out.rglob("*.html"):
        assert not re.search(
            r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", path.read_text("utf-8"), re.I
        )


def test_evidence_page_tells_the_lifecycle_story(demo_site: Path) -> None:
    import html

    out = demo_site
    text = html.unescape(visible((out / "evidence.html").read_text("utf-8")))
    assert "kc-returns-v4.md replaces kc-returns-v3; asked 'st02'" in text
    assert "serves 3 superseded chunk(s), 0 of them of the replaced version" in text
    assert "the old version is hidden and the new one is not indexed: no answer from it" in text
    assert "kc-returns-v4:c0" in text and "serves the new version" in text
    assert "still serves deleted kc-helmets-v1" in text and "gone from the index" in text
    assert "Kept Merged into it kc-returns-v3:c0 kc-faq-returns:c0" in text
    assert "kc-faq-returns:c0 kc-partner-returns:c0 same words, different numbers" in text
    assert re.search(r"kestrel tenant filter 24 0 none kestrel none \(control\) 24 \d+ hb-", text)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("[project]\n", '[project]\ncolour = "red"\n'), ":6: [project].colour: unknown key"),
        (('baseline = "baseline_retrieval.json"', 'baseline = "nowhere.json"'), "[gate].baseline"),
        (("relevance = 2", "relevance = 5"), "[questions].relevance"),
    ],
)
def test_project_file_errors_exit_2_with_one_line(
    demo_site: Path, tmp_path: Path, edit: tuple[str, str], expected: str
) -> None:
    out = tmp_path / "site"  # a copy: the refused build must leave this previous site alone
    shutil.copytree(demo_site, out)
    before = snapshot(out)
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    project = data / "evidencedesk.toml"
    text = project.read_text(encoding="utf-8")
    assert edit[0] in text
    project.write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    status, _, stderr = build(out, "--project", str(project))
    assert status == 2
    assert stderr.count("\n") == 1 and stderr.startswith(f"error: {project}")
    assert expected in stderr
    assert snapshot(out) == before
