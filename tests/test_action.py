"""The CI action (action.yml): its build step's shell script, run as GitHub would run it.

GitHub runs a composite step's ``run`` with ``bash --noprofile --norc -eo pipefail``; the script
must record the build's exit status as the step output ``status`` and still succeed, so that the
upload step publishes a site whose gate failed, and the last step fails the job.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from evidencedesk.results import _serialize as serialize

ROOT = Path(__file__).resolve().parents[1]
ACTION = (ROOT / "action.yml").read_text(encoding="utf-8")


def step_script(name: str) -> str:
    """The ``run: |`` block of the step called `name` (8-space indented lines)."""
    lines = ACTION.splitlines()
    start = lines.index(f"    - name: {name}")
    run = next(i for i in range(start, len(lines)) if lines[i] == "      run: |")
    body = []
    for line in lines[run + 1 :]:
        if line and not line.startswith("        "):
            break
        body.append(line[8:])
    return "\n".join(body).strip() + "\n"


@pytest.mark.parametrize(
    ("factory", "fail_on", "status"),
    # 1: the site was written and the gate failed; 2: bad input, no site. Both must let the
    # step succeed so that the upload and the final failing step run.
    [("fixture_model", "block", "1"), ("failing_model", "never", "2")],
)
def test_the_build_step_records_the_status_and_succeeds(
    tmp_path: Path, factory: str, fail_on: str, status: str
) -> None:
    done, output = run_build_step(
        tmp_path, FAIL_ON=fail_on, EXTRA=f"--model-factory tests.report_fixtures:{factory}"
    )
    assert done.returncode == 0, done.stderr
    assert output == f"status={status}\n"
    assert (tmp_path / "site" / "index.html").is_file() == (status != "2")


def test_the_action_installs_from_its_own_checkout_and_uploads_the_out_folder() -> None:
    assert 'python -m pip install --disable-pip-version-check -q "$package"' in ACTION
    assert "ACTION_PATH: ${{ github.action_path }}" in ACTION
    assert "path: ${{ inputs.out }}\n" in ACTION
    assert step_script("Fail the job on a failed gate level or a build error").endswith(
        'exit "$STATUS"\n'
    )
    workflow = (ROOT / ".github" / "workflows" / "report.yml").read_text(encoding="utf-8")
    assert "uses: ./\n" in workflow


def run_build_step(tmp_path: Path, **env_vars: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """The action's build step, run by bash as the runner runs it, with the step's environment
    (`env_vars` override the defaults) and an `evidencedesk` on PATH that records its arguments
    in `tmp_path/args`. Returns the finished step and what it wrote to GITHUB_OUTPUT."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "evidencedesk"  # the console script, as `pip install` would put it
    shim.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/args"\nexec {sys.executable} {ROOT / "tests" / "with_model.py"} "$@"\n'
    )
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    output = tmp_path / "github_output"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "GITHUB_OUTPUT": str(output),
        "PROJECT": "",
        "FAIL_ON": "never",
        "OUT": "site",
        "SEED": "0",
        "EXTRA": "--model-factory tests.report_fixtures:fixture_model",
        **env_vars,
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step_script("Build the report")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return done, output.read_text() if output.exists() else ""


def _run_build_step(tmp_path: Path, previous: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """The build step with PREVIOUS set; returns it and the arguments evidencedesk was given."""
    done, output = run_build_step(tmp_path, PREVIOUS=previous)
    assert done.returncode == 0, done.stderr
    assert output == "status=0\n"
    return done, (tmp_path / "args").read_text()


def test_a_previous_run_id_passes_its_results_json_to_compare_to(tmp_path: Path) -> None:
    from tests.test_results_units import tiny_results

    previous = tmp_path / "site-previous"
    previous.mkdir()
    (previous / "results.json").write_text(serialize.dumps(tiny_results()), encoding="utf-8")
    _, args = _run_build_step(tmp_path, "4242")
    assert "--compare-to\nsite-previous/results.json\n" in args


@pytest.mark.parametrize("previous", ["", "4242"])
def test_without_a_previous_site_the_build_has_no_compare_to(tmp_path: Path, previous: str) -> None:
    done, args = _run_build_step(tmp_path, previous)  # the artifact was not there to download
    assert "--compare-to" not in args
    warned = "::warning::no results.json in the artifact of run 4242" in done.stdout
    assert warned == bool(previous)


def test_the_action_downloads_the_previous_artifact_and_the_workflow_finds_it() -> None:
    fetch = ACTION.split("    - name: Fetch the previous site (for --compare-to)\n")[1]
    fetch = fetch.split("\n    - name:")[0]
    assert "if: inputs.previous-run-id != ''" in fetch
    assert "continue-on-error: true" in fetch  # an expired artifact does not stop the build
    assert "uses: actions/download-artifact@v4" in fetch
    assert "path: ${{ inputs.out }}-previous" in fetch
    assert "run-id: ${{ inputs.previous-run-id }}" in fetch
    assert "github-token: ${{ github.token }}" in fetch
    assert "PREVIOUS: ${{ inputs.previous-run-id }}" in ACTION
    workflow = (ROOT / ".github" / "workflows" / "report.yml").read_text(encoding="utf-8")
    assert "actions: read" in workflow
    assert "gh run list" in workflow and "--branch main" in workflow
    assert "previous-run-id: ${{ steps.previous.outputs.run-id }}" in workflow


@pytest.mark.parametrize("planted", [False, True])
def test_the_audit_step_holds_the_built_site_to_its_results(
    demo_site: Path, tmp_path: Path, planted: bool
) -> None:
    """After the upload, the audit step fails the job when a sentence of the site disagrees
    with its results.json (here: a verdict badge edited on the index)."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(demo_site, site)
    if planted:
        index = (site / "index.html").read_text("utf-8")
        (site / "index.html").write_text(index.replace(">LEANS WORSE</span>", ">BETTER</span>", 1),
                                         "utf-8")  # fmt: skip
    assert "if: inputs.audit == 'true' && (steps.build.outputs.status == '0' ||" in ACTION
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step_script("Audit the site")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "OUT": "site", "PYTHONPATH": str(ROOT),
             "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
    )  # fmt: skip
    assert done.returncode == (1 if planted else 0), done.stdout + done.stderr
    last = done.stdout.splitlines()[-1]
    if planted:
        assert done.stdout.splitlines() == [
            # the first badge saying LEANS WORSE: the verdicts tile's legend of its count
            "index.html: 'BETTER': results.json says 'LEANS WORSE' (the legend of '1': claim 13 of "
            "index.html)",
            "audit: 1 disagreement(s) with results.json",
        ]
    else:
        assert last.startswith("ok: ") and last.endswith(" agree with results.json")


def _run_step(name: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The step called `name`, run by bash as the runner runs it, in `cwd` with `env` added."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step_script(name)],
        cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT),
             "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **env},
    )  # fmt: skip


def test_the_summary_step_appends_the_summary_and_sets_the_output(
    demo_site: Path, tmp_path: Path
) -> None:
    """The job summary gets the site's summary.md and a line linking the run, after what other
    steps wrote; the step output `summary` holds the same text between a random delimiter."""
    import re
    import shutil

    shutil.copytree(demo_site, tmp_path / "site")
    job_summary, output = tmp_path / "step_summary", tmp_path / "github_output"
    job_summary.write_text("# an earlier step\n", encoding="utf-8")
    url = "https://github.com/o/r/actions/runs/7"
    step = ACTION.split("    - name: Write the job summary\n")[1].split("\n    - name:")[0]
    assert "if: steps.build.outputs.status == '0' || steps.build.outputs.status == '1'" in step
    assert "continue-on-error: true" in step  # a failed summary still lets the site upload
    assert ACTION.index("name: Write the job summary") < ACTION.index("name: Upload the site")
    done = _run_step("Write the job summary", tmp_path,
                     {"OUT": "site", "RUN_URL": url, "GITHUB_STEP_SUMMARY": str(job_summary),
                      "GITHUB_OUTPUT": str(output)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = (demo_site / "summary.md").read_text("utf-8").rstrip("\n") + (
        f"\n\nThe full site: the artifact of [this workflow run]({url})."
    )
    assert job_summary.read_text("utf-8") == f"# an earlier step\n{text}\n"
    found = re.fullmatch(r"summary<<(EVIDENCEDESK_[0-9a-f]{32})\n(.*)\n\1\n", output.read_text("utf-8"),
                         re.DOTALL)  # fmt: skip
    assert found is not None and found.group(2) == text
    assert "value: ${{ steps.summary.outputs.summary }}" in ACTION


@pytest.mark.parametrize(
    ("extras", "package", "status"),
    [("", "{action}", 0), ("minilm", "{action}[minilm]", 0),
     ("minilm,pandas", "{action}[minilm,pandas]", 0), ("minilm]; rm -rf ~", None, 2)],
)  # fmt: skip
def test_the_install_step_installs_the_extras(
    tmp_path: Path, extras: str, package: str | None, status: int
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "python"  # records what pip would be asked to install
    shim.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/args"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    action = str(tmp_path / "action checkout")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
         step_script("Install evidencedesk from this action's checkout")],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
             "ACTION_PATH": action, "EXTRAS": extras},
    )  # fmt: skip
    assert done.returncode == status, done.stderr
    if package is None:
        assert not (tmp_path / "args").exists()
        assert done.stdout == (
            "::error::extras: expected extra names separated by commas (letters, digits, '.', "
            "'_', '-'), found other characters\n"
        )
    else:
        assert (tmp_path / "args").read_text().splitlines() == [
            "-m", "pip", "install", "--disable-pip-version-check", "-q",
            package.format(action=action),
        ]  # fmt: skip


def test_with_the_minilm_extra_the_action_restores_and_saves_the_rows_the_build_keeps() -> None:
    lines = ACTION.splitlines()
    start = lines.index("    - name: Restore the MiniLM rows of earlier runs")
    step = lines[start : lines.index("    - name: Build the report")]
    assert "      if: contains(format(',{0},', inputs.extras), ',minilm,')" in step
    assert "      uses: actions/cache@v4" in step
    assert "        path: ~/.cache/evidencedesk" in step
    assert ("        key: evidencedesk-rows-${{ runner.os }}-${{ github.run_id }}-"
            "${{ github.run_attempt }}") in step  # fmt: skip
    assert "        restore-keys: evidencedesk-rows-${{ runner.os }}-" in step
    # the build keeps its rows in the very folder the step restores and saves
    build = lines[lines.index("    - name: Build the report") :]
    env = build.index("      env:")
    assert build[env + 1] == "        EVIDENCEDESK_CACHE: ~/.cache/evidencedesk"
