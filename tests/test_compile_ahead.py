"""`report.render.compile_ahead`: the templates compiled by a forked child (the command line's,
with ``--tune fork``) are taken by this process's first template look-up, which then compiles
nothing; a job that fails leaves the render to compile them itself."""

from __future__ import annotations

from collections.abc import Callable

import jinja2
import pytest

from evidencedesk import paths
from evidencedesk.cli._process import forked
from evidencedesk.errors import EvidencedeskError
from evidencedesk.report import _render as render

_PAGES = sorted(p.name for p in paths._TEMPLATES.glob("*.html"))


@pytest.fixture
def compiled_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A cache of this process's own (empty: nothing compiled yet), and the names of the
    templates this process compiles."""
    monkeypatch.setattr(render, "_COMPILED", render._CompiledTemplates())
    names: list[str] = []
    compile_template = jinja2.Environment._compile

    def counted(env: jinja2.Environment, source: str, filename: str) -> object:
        names.append(filename.rpartition("/")[2])
        return compile_template(env, source, filename)

    monkeypatch.setattr(jinja2.Environment, "_compile", counted)
    return names


def _every_template() -> None:
    env = render.environment()
    for name in _PAGES:
        env.get_template(name)


def test_a_forked_child_compiles_every_template_and_this_process_none(
    compiled_here: list[str],
) -> None:
    render.compile_ahead(forked)
    _every_template()
    assert compiled_here == []
    assert len(render._COMPILED.code) == len(_PAGES)
    assert render._COMPILED.ahead == []  # taken


def test_at_once_the_job_fills_the_cache_itself(compiled_here: list[str]) -> None:
    render.compile_ahead(render.at_once)
    assert sorted(compiled_here) == _PAGES
    _every_template()
    assert sorted(compiled_here) == _PAGES  # nothing compiled twice


class _Failed:
    def wait(self) -> object:
        raise EvidencedeskError("compiling the templates stopped (status -9)")

    def stop(self) -> None:
        return None


def _never_ran(job: Callable[[], object]) -> _Failed:
    return _Failed()


def test_a_failed_job_leaves_the_render_to_compile(compiled_here: list[str]) -> None:
    render.compile_ahead(_never_ran)
    _every_template()
    assert sorted(compiled_here) == _PAGES
