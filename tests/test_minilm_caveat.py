"""MiniLM's caveat names what the model ran as: the demo runs it as a searcher only (its "dense:
MiniLM" candidate), so its pages say "The MiniLM searcher is …", not "searcher and reranker"; a
project whose only MiniLM is a reranker says "The MiniLM reranker is …"; results.json records
the roles (`ModelFacts.roles`), and the audit names a caveat that claims a role the report never
ran."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidencedesk import cli
from evidencedesk.report._audit import audit
from evidencedesk.report._benchmark import caveat_keys
from evidencedesk.results._serialize import load
from evidencedesk.retrieval import minilm
from evidencedesk.retrieval.parts import _minilm_roles
from tests.conftest import EXAMPLES
from tests.planting import planted

REST = (
    "MiniLM-L6-v2 int8 (ONNX), a bi-encoder, not a cross-encoder: a real trained model, but "
    "query and passage are embedded separately and compared by cosine, never read together as a "
    "cross-encoder reads a pair; its int8 weights are a compressed copy of the fp32 model. It "
    "was trained on English text only."
)
SEARCHER = f"The MiniLM searcher is {REST}"
RERANKER = f"The MiniLM reranker is {REST}"
BOTH = f"The MiniLM searcher and reranker are {REST}"

needs_model = pytest.mark.skipif(
    bool(minilm._missing_packages()), reason="the [minilm] extra is not installed"
)


@pytest.mark.parametrize(
    ("roles", "caveat"),
    [(["searcher"], SEARCHER), (["reranker"], RERANKER), (["reranker", "searcher"], BOTH)],
)
def test_the_caveat_names_what_the_model_ran_as(roles: list[str], caveat: str) -> None:
    assert minilm._caveat(roles) == caveat


@pytest.mark.parametrize(
    ("first_stage", "reranker", "dense", "roles"),
    [
        ("minilm", "none", "toy", ("searcher",)),
        ("hybrid", "minilm", "toy", ("reranker",)),
        ("minilm", "minilm", "toy", ("searcher", "reranker")),
        ("hybrid", "feature", "minilm", ("searcher",)),  # the dense half is the model
        ("sparse", "minilm", "minilm", ("reranker",)),
        ("sparse", "feature", "minilm", ()),
        ("hybrid", "none", "toy", ()),
    ],
)
def test_a_configuration_runs_the_model_as_its_stages_say(
    first_stage: str, reranker: str, dense: str, roles: tuple[str, ...]
) -> None:
    assert _minilm_roles(first_stage, reranker, dense) == roles


@pytest.mark.parametrize(
    ("first_stage", "reranker", "dense", "keys"),
    [
        ("hybrid", "none", "toy", ("dense",)),
        ("sparse", "feature", "toy", ("rerankers",)),
        ("minilm", "none", "toy", ("minilm",)),  # only a candidate runs the model: its own key
        ("hybrid", "minilm", "toy", ("dense", "minilm")),
        ("hybrid", "feature", "minilm", ("dense", "rerankers")),  # the project's dense searcher
        ("sparse", "minilm", "minilm", ("dense",)),
        ("sparse", "none", "minilm", ()),
    ],
)
def test_a_configuration_bears_the_caveats_of_its_stages(
    first_stage: str, reranker: str, dense: str, keys: tuple[str, ...]
) -> None:
    assert caveat_keys(first_stage, reranker, dense) == keys


@needs_model
def test_the_demo_says_searcher_and_records_it(demo_site: Path) -> None:
    assert [m.roles for m in load(demo_site / "results.json").models] == [("searcher",)]
    for page in ("index.html", "methods.html"):
        text = (demo_site / page).read_text("utf-8")
        assert SEARCHER in text and "searcher and reranker" not in text


@needs_model
def test_a_reranker_only_project_says_reranker(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES, project, ignore=shutil.ignore_patterns("site", "runs-only"))
    (project / "candidates.toml").write_text(
        '[[candidate]]\nname = "rerank with MiniLM"\nrationale = "the model reorders the top 10"'
        '\nchanges = { reranker = "minilm" }\n',
        "utf-8",
    )
    site = tmp_path / "site"
    assert cli.main(["build", "--project", str(project), "--out", str(site), "--quiet"]) == 0
    assert [m.roles for m in load(site / "results.json").models] == [("reranker",)]
    methods = (site / "methods.html").read_text("utf-8")
    assert RERANKER in methods and "MiniLM searcher" not in methods
    # its page: the baseline's toy dense half and the model, no lexical stand-in
    page = next(site.glob("candidate-rerank-with-minilm-*.html")).read_text("utf-8")
    assert (
        '<p class="caveat-line"><strong>Read with care:</strong> the dense searcher is a toy · '
        'MiniLM is a bi-encoder, not a cross-encoder (<a href="methods.html#caveats">each in '
        "full</a>).</p>"
    ) in page


@needs_model
def test_the_audit_names_a_role_the_report_never_ran(demo_site: Path, tmp_path: Path) -> None:
    site = planted(demo_site, tmp_path, "methods.html", SEARCHER, BOTH)
    assert [d.line() for d in audit(site)[0]] == [
        "methods.html: 'The MiniLM searcher and reranker are MiniLM-L6-v2 int8 (ONNX), a "
        "bi-encoder, not a cross-encoder: a real trained model, but query and passage are "
        "embedded separately and compared by cosine, never read': results.json says nothing: "
        "none of this project's caveats says this"
    ]
