"""Rows kept between builds (`files._row_cache`, used by `retrieval.minilm.MiniLMEmbedder`).

The suite runs with ``EVIDENCEDESK_CACHE=off`` (conftest.py): these tests give the cache a
folder of their own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from evidencedesk.files import _row_cache
from evidencedesk.files._row_cache import _CACHE_ENV, RowStore, _text_key, cache_folder
from evidencedesk.retrieval import minilm
from tests.test_bad_input import snapshot

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 4


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({_CACHE_ENV: "/srv/rows"}, Path("/srv/rows")),
        ({_CACHE_ENV: "off"}, None),
        ({_CACHE_ENV: "OFF "}, None),
        ({_CACHE_ENV: ""}, None),
        ({_CACHE_ENV: "~/rows", "HOME": "/home/ana"}, Path("/home/ana/rows")),
        ({"XDG_CACHE_HOME": "/var/cache/ana", "HOME": "/home/ana"},
         Path("/var/cache/ana/evidencedesk")),
        ({"XDG_CACHE_HOME": "", "HOME": "/home/ana"}, Path("/home/ana/.cache/evidencedesk")),
        ({"HOME": "/home/ana"}, Path("/home/ana/.cache/evidencedesk")),
    ],
)  # fmt: skip
def test_the_cache_folder_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: Path | None
) -> None:
    for name in (_CACHE_ENV, "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cache_folder() == expected


def _store(folder: Path, name: str = "model-a") -> RowStore:
    return RowStore(folder, lambda: name, WIDTH)


def test_rows_come_back_with_the_same_bytes_for_their_own_model_only(tmp_path: Path) -> None:
    rows = {"returns": np.array([0.1, -0.25, 1 / 3, 0.0]), "রিটার্ন": np.array([1e-6, 2, 3, 4.5])}
    _store(tmp_path).put(rows)
    found = _store(tmp_path).get(["returns", "রিটার্ন", "shipping"])
    assert sorted(found) == ["returns", "রিটার্ন"]
    for text, row in rows.items():
        assert found[text].dtype == np.float64 and found[text].tobytes() == row.tobytes()
    assert _store(tmp_path, "model-b").get(["returns"]) == {}


def test_a_kept_row_stays_and_a_row_of_the_wrong_width_is_not_kept(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.put({"a": np.array([1.0, 2, 3, 4]), "short": np.array([1.0, 2])})
    store.put({"a": np.array([9.0, 9, 9, 9])})
    found = store.get(["a", "short"])
    assert list(found) == ["a"] and found["a"].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_looking_up_makes_no_file_and_names_the_model_only_when_asked(tmp_path: Path) -> None:
    asked: list[int] = []

    def name() -> str:
        asked.append(1)
        return "model-a"

    store = RowStore(tmp_path / "cache", name, WIDTH)
    assert asked == []
    assert store.get(["a"]) == {} and not (tmp_path / "cache").exists()
    store.put({"a": np.ones(WIDTH)})
    assert store.get(["a"])["a"].tolist() == [1.0] * WIDTH and len(asked) == 1
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["evidencedesk-rows.sqlite3"]


def test_more_texts_than_one_query_holds_are_looked_up_in_parts(tmp_path: Path) -> None:
    texts = [f"text {i}" for i in range(2 * _row_cache._PER_QUERY + 7)]
    _store(tmp_path).put({t: np.full(WIDTH, float(i)) for i, t in enumerate(texts)})
    found = _store(tmp_path).get(texts)
    assert len(found) == len(texts) and found[texts[-1]].tolist() == [float(len(texts) - 1)] * 4


def test_a_file_that_is_not_a_database_is_a_miss_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "evidencedesk-rows.sqlite3"
    path.write_bytes(b"not a database, someone's notes\n" * 200)
    before = path.read_bytes()
    store = _store(tmp_path)
    store.put({"a": np.ones(WIDTH)})
    assert store.get(["a"]) == {}
    assert path.read_bytes() == before


def test_a_cache_folder_that_cannot_be_made_is_a_miss(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would be\n", encoding="utf-8")
    store = _store(blocker / "cache")
    store.put({"a": np.ones(WIDTH)})
    assert store.get(["a"]) == {}
    assert blocker.read_text(encoding="utf-8") == "a file where the folder would be\n"


def test_text_keys_are_the_sha256_of_the_utf8_bytes() -> None:
    assert _text_key("abc").hex() == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


class CountingEncoder:
    """Rows from each text's length and first character; counts the texts it encodes. With an
    `identity`, as the packaged model has, its rows may be kept between builds."""

    dim = minilm._DIM

    def __init__(self, name: str | None = "fake-1") -> None:
        self.texts: list[str] = []
        if name is not None:
            self.identity = lambda: name

    def lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(t) for t in texts]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += texts
        out = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            out[row, :2] = (len(text), ord(text[0]))
        return out


TEXTS = ["Returns within 30 days", "Express shipping", "Returns within 30 days", "Helmets"]


def test_a_second_embedder_finds_the_rows_the_first_kept_and_encodes_nothing(
    tmp_path: Path,
) -> None:
    first_encoder = CountingEncoder()
    first = minilm.MiniLMEmbedder(first_encoder, cache=tmp_path).embed_many(TEXTS)
    assert sorted(first_encoder.texts) == ["Express shipping", "Helmets", "Returns within 30 days"]
    again_encoder = CountingEncoder()
    again = minilm.MiniLMEmbedder(again_encoder, cache=tmp_path).embed_many(TEXTS)
    assert again_encoder.texts == [] and again.tobytes() == first.tobytes()
    # one new text: only it is encoded
    more_encoder = CountingEncoder()
    minilm.MiniLMEmbedder(more_encoder, cache=tmp_path).embed_many([*TEXTS, "Sizing"])
    assert more_encoder.texts == ["Sizing"]


def test_another_model_and_an_encoder_without_an_identity_keep_nothing_in_common(
    tmp_path: Path,
) -> None:
    minilm.MiniLMEmbedder(CountingEncoder(), cache=tmp_path).embed_many(TEXTS)
    other = CountingEncoder("fake-2")
    minilm.MiniLMEmbedder(other, cache=tmp_path).embed_many(TEXTS)
    assert len(other.texts) == 3
    nameless = CountingEncoder(None)
    embedder = minilm.MiniLMEmbedder(nameless, cache=tmp_path)
    assert embedder.cache is None
    embedder.embed_many(TEXTS)
    assert len(nameless.texts) == 3


@pytest.mark.parametrize("cache", [False, ""])
def test_cache_false_keeps_no_rows(tmp_path: Path, cache: bool | str) -> None:
    assert minilm.MiniLMEmbedder(CountingEncoder(), cache=cache).cache is None


def test_the_default_cache_is_the_environments_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_CACHE_ENV, str(tmp_path / "rows"))
    embedder = minilm.MiniLMEmbedder(CountingEncoder())
    assert embedder.cache is not None and embedder.cache.path == (
        tmp_path / "rows" / "evidencedesk-rows.sqlite3"
    )
    monkeypatch.setenv(_CACHE_ENV, "off")
    assert minilm.MiniLMEmbedder(CountingEncoder()).cache is None


_BUILD_TWICE = """
import sys
from evidencedesk.cli import main
code = main(["build", "--out", sys.argv[1], "--quiet"])
print(code, "onnxruntime" in sys.modules, "tokenizers" in sys.modules)
"""


@pytest.mark.skipif(bool(minilm._missing_packages()), reason="the minilm extra is not installed")
def test_a_demo_build_with_the_rows_kept_runs_no_model_and_writes_the_same_site(
    tmp_path: Path,
) -> None:
    env = dict(os.environ, **{_CACHE_ENV: str(tmp_path / "cache")})
    printed = []
    for site in ("cold", "warm"):
        done = subprocess.run([sys.executable, "-c", _BUILD_TWICE, str(tmp_path / site)],
                              capture_output=True, text=True, cwd=ROOT, env=env, check=True)  # fmt: skip
        printed.append(done.stdout.split()[-3:])
    # the first build ran the model and kept its rows; the second found every one of them
    assert printed == [["0", "True", "True"], ["0", "False", "False"]]
    cold, warm = snapshot(tmp_path / "cold"), snapshot(tmp_path / "warm")
    assert cold.keys() == warm.keys() and all(cold[name] == warm[name] for name in cold)
    # the model facts name the model file's sha256, read by the build that ran no model too
    sha256 = minilm._OnnxMiniLM.shared().identity().split()[0].removeprefix("model=")
    assert f"sha256 {sha256}".encode() in warm["results.json"]
