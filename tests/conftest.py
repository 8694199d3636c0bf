from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from evidencedesk.chunking import Chunk

# No per-example time limit: a deadline is a timed test, and this shared 2-core machine (and CI)
# can be slow for reasons that have nothing to do with the code under test.
settings.register_profile("evidencedesk", deadline=None)
settings.load_profile("evidencedesk")

# No rows kept between builds (`files._row_cache`): a test that counts the model's work, or a
# build the suite compares, is not to depend on what an earlier test or the developer's own
# builds left in a cache folder, and the suite writes nothing into the user's cache.
# tests/test_row_cache.py gives the cache folders of its own. (Builds the tests start in
# subprocesses inherit it.)
os.environ["EVIDENCEDESK_CACHE"] = "off"


def make_chunk(cid: str, text: str, title: str = "T", **meta: object) -> Chunk:
    doc_id = cid.split(":")[0]
    return Chunk(id=cid, doc_id=doc_id, title=title, text=text, **meta)  # type: ignore[arg-type]


def write_doc(folder: Path, name: str, header: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"---\n{header}\n---\n{body}\n", encoding="utf-8")
    return path


@pytest.fixture
def tiny_chunks() -> list[Chunk]:
    return [
        make_chunk("a:c0", "Bikes may be returned within 30 days for a refund.", "Returns"),
        make_chunk(
            "b:c0", "Recall notice: the derailleur batch RD2-24 must be replaced.", "Recall"
        ),
        make_chunk("c:c0", "Express shipping takes 2 business days.", "Shipping"),
        make_chunk("d:c0", "বাইক ফেরত দেওয়ার নিয়ম ৩০ দিন।", "ফেরত", language="bn"),
        make_chunk(
            "e:c0",
            "Internal note: staff may refund after 30 days.",
            "Staff",
            visibility="restricted",
        ),
    ]


class _Counter:
    """Wraps a statistics function and counts its calls."""

    def __init__(self, fn):  # type: ignore[no-untyped-def]
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls += 1
        return self.fn(*args, **kwargs)


@dataclass(frozen=True)
class DemoBuild:
    """The demo as ``evidencedesk build --out <site>`` built it: the site, what the build printed
    (progress lines and summary, not a terminal) and how many bootstrap intervals it computed."""

    site: Path
    stdout: str
    calls: dict[str, int]  # {"bootstrap": ..., "paired": ...}


def _build_demo(root: Path) -> None:
    """Build the demo into ``root/site``; its stdout and call counts go beside it."""
    from evidencedesk import cli
    from evidencedesk.results import _compute as compute

    out, err = io.StringIO(), io.StringIO()
    boot, pair = _Counter(compute.bootstrap_ci), _Counter(compute._paired_bootstrap_ci)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(compute, "bootstrap_ci", boot)
        mp.setattr(compute, "_paired_bootstrap_ci", pair)
        code = cli.main(["build", "--out", str(root / "site")], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    (root / "stdout.txt").write_text(out.getvalue(), encoding="utf-8")
    calls = {"bootstrap": boot.calls, "paired": pair.calls}
    (root / "calls.json").write_text(json.dumps(calls), encoding="utf-8")


def _once(root: Path, make: Callable[[Path], None], timeout: float = 900) -> None:
    """Run `make(root)` once for every process sharing `root` (the xdist workers of one run):
    the first to create ``root/lock`` makes it, the others wait for ``root/done``."""
    root.mkdir(parents=True, exist_ok=True)
    done = root / "done"
    try:
        fd = os.open(root / "lock", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        deadline = time.monotonic() + timeout
        while not done.exists():
            if time.monotonic() > deadline:
                pytest.fail(f"{root}: another test process did not finish building in {timeout} s")
            time.sleep(0.05)
    else:
        os.close(fd)
        outcome = "ok"
        try:
            make(root)
        except BaseException as exc:
            outcome = f"failed: {type(exc).__name__}: {exc}"
            raise
        finally:
            (root / "done.tmp").write_text(outcome, encoding="utf-8")
            os.replace(root / "done.tmp", done)  # whole, or not there at all
    outcome = done.read_text(encoding="utf-8")
    if outcome != "ok":
        pytest.fail(f"{root}: the shared build {outcome}")


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _shared_root(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every xdist worker of this run sees (the run's base temporary folder is their
    parent), or this process's own without xdist."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.getbasetemp().parent / name
    return tmp_path_factory.mktemp(name)


def _build_generated(root: Path, seed: int, questions: int | None = None) -> None:
    from evidencedesk import cli
    from tests.generated_projects import generated

    toml, _ = generated(
        root / "project", seed, **({} if questions is None else {"questions": questions})
    )
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()


def _shared_sites(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path, Any], None]
) -> Iterator[Callable[[Any], Path]]:
    """Sites built once for the whole run by `build(root, key)`, one per key asked for, shared
    like `demo_build` (read them, never write into them: checked when the run ends)."""
    made: dict[Any, tuple[Path, str]] = {}

    def site(key: Any) -> Path:
        if key not in made:
            root = _shared_root(tmp_path_factory, f"{name}-{key}-session")
            _once(root, lambda r: build(r, key))
            made[key] = (root / "site", _tree_digest(root / "site"))
        return made[key][0]

    yield site
    for folder, before in made.values():
        assert _tree_digest(folder) == before, f"a test wrote into the shared site {folder}"


@pytest.fixture(scope="session")
def generated_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[int], Path]]:
    """`generated_site(seed)`: generated project `seed` (tests/generated_projects.py) built once
    for the whole run -- its site."""
    yield from _shared_sites(tmp_path_factory, "generated", _build_generated)


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "millbrook-library"
EXAMPLE_PROJECTS = {"pipeline": EXAMPLES, "runs-only": EXAMPLES / "runs-only"}


def _build_example(root: Path, which: str) -> None:
    from evidencedesk import cli

    err = io.StringIO()
    argv = ["build", "--project", str(EXAMPLE_PROJECTS[which]), "--out", str(root / "site"), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()


@pytest.fixture(scope="session")
def example_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Path]]:
    """`example_site("pipeline")` (examples/millbrook-library) or `example_site("runs-only")`
    (its runs-only project), each built once for the whole run -- its site."""
    yield from _shared_sites(tmp_path_factory, "example", _build_example)


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoBuild]:
    """The demo built once for the whole run (read it, never write into it: copy it first).

    Under pytest-xdist every worker reads the same build, made by whichever worker asks first
    (the run's base temporary folder is shared by its workers). At the end of the session the
    site must be byte for byte as built: a test that wrote into it fails here."""
    root = _shared_root(tmp_path_factory, "demo-session")
    _once(root, _build_demo)
    site = root / "site"
    before = _tree_digest(site)
    yield DemoBuild(
        site,
        (root / "stdout.txt").read_text(encoding="utf-8"),
        json.loads((root / "calls.json").read_text(encoding="utf-8")),
    )
    assert _tree_digest(site) == before, f"a test wrote into the shared demo site {site}"


@pytest.fixture(scope="session")
def demo_site(demo_build: DemoBuild) -> Path:
    """The shared demo site (`demo_build`): read it, never write into it."""
    return demo_build.site


@pytest.fixture(scope="session")
def demo_results(demo_site: Path):  # type: ignore[no-untyped-def]
    from evidencedesk.results._serialize import load

    return load(demo_site / "results.json")


@pytest.fixture(scope="session")
def split_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Generated project 2 with 520 questions, built once for the run: above 500 questions the
    site is split (the per-question CSV and the qrels gzipped, results.json in two)."""
    sites = _shared_sites(tmp_path_factory, "split", lambda root, n: _build_generated(root, 2, n))
    yield next(sites)(520)
    next(sites, None)  # the check that no test wrote into it


def _build_many_documents(root: Path, documents: int) -> None:
    from evidencedesk import cli
    from tests.generated_projects import generated

    toml, _ = generated(root / "project", 3, questions=12, documents=documents)
    err = io.StringIO()
    argv = ["build", "--project", str(toml), "--out", str(root / "site"), "-q"]
    assert cli.main(argv, stdout=io.StringIO(), stderr=err) == 0, err.getvalue()


@pytest.fixture(scope="session")
def many_documents_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Generated project 3 with 12 questions and a corpus of 1,050 documents (shown, not
    indexed), built once for the run: the documents page lists the first 1,000 and counts the
    rest."""
    sites = _shared_sites(tmp_path_factory, "documents", _build_many_documents)
    yield next(sites)(1050)
    next(sites, None)  # the check that no test wrote into it


def _build_since(root: Path, seed: int) -> None:
    """Generated project `seed` with 40 questions, then with 45, the first judgment's grade
    raised by one and another seed, built against the first (`--compare-to`)."""
    from evidencedesk import cli
    from tests.generated_projects import generated

    before, _ = generated(root / "before", seed, questions=40)
    after, _ = generated(root / "after", seed, questions=45)
    qrels = root / "after" / "qrels.txt"
    first, rest = qrels.read_text("utf-8").split("\n", 1)
    q, zero, doc, grade = first.split()
    qrels.write_text(f"{q} {zero} {doc} {int(grade) + 1}\n{rest}", "utf-8")
    for argv in (["--project", str(before), "--out", str(root / "earlier")],
                 ["--project", str(after), "--out", str(root / "site"), "--seed", "3",
                  "--compare-to", str(root / "earlier")]):  # fmt: skip
        err = io.StringIO()
        assert cli.main(["build", *argv, "-q"], stdout=io.StringIO(), stderr=err) == 0, (
            err.getvalue()
        )


@pytest.fixture(scope="session")
def since_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Generated project 1 built against an earlier build of itself (`_build_since`): its
    since.html and the index's section list inputs, questions added, a label grade, a verdict,
    metrics, questions newly failing and passing, and another seed."""
    sites = _shared_sites(tmp_path_factory, "since", _build_since)
    yield next(sites)(1)
    next(sites, None)  # the check that no test wrote into it


@pytest.fixture(scope="session")
def ndcg_site(generated_site: Callable[[int], Path]) -> Path:
    """Generated project 1: primary nDCG@10 (linear gain), grades 0-3 named, relevance 1, a
    gate policy with critical questions, six candidates (one better, one worse, one damaged);
    built once for the run."""
    from tests.generated_projects import shape_of

    shape = shape_of(1)
    assert (shape.primary, shape.policy, shape.candidates) == ("ndcg@10:linear", True, 6)
    return generated_site(1)
