"""The benchmark's variants (SPEC §8): the built-in configurations every pipeline project runs.

The command (``python -m evidencedesk.retrieval.benchmark``, ``evidencedesk benchmark``: options,
the gate, exit statuses) is `evidencedesk.cli._benchmark`, which prints the site's own benchmark
table (`report.exports.benchmark_text`); this module only hands ``python -m`` over to it.
"""

from __future__ import annotations

from evidencedesk.retrieval.evalreport import Config

__all__ = []

# the benchmark's built-in variants: a name and its Config each
_VARIANTS: tuple[tuple[str, Config], ...] = (
    ("sparse", Config(first_stage="sparse")),
    ("dense", Config(first_stage="dense")),
    ("hybrid", Config()),
    ("hybrid + overlap", Config(reranker="overlap")),
    ("hybrid + feature", Config(reranker="feature")),
    ("hybrid + blend", Config(reranker="blend")),
    ("hybrid + pair (8 words)", Config(reranker="pair", max_words=8)),
)


# `python -m evidencedesk.retrieval.benchmark` (SPEC §8) runs ``evidencedesk benchmark``; only a
# script run imports the command line, so the library stays below it.
if __name__ == "__main__":
    import sys

    from evidencedesk.cli import main

    sys.exit(
        main(
            ["benchmark", *sys.argv[1:]],
            prog="python -m evidencedesk.retrieval.benchmark",
            exit_process=True,
        )
    )
