"""Metric names: the grammar that `retrieval.metrics` and the project file's reader share.

Reading a name needs no numpy and no judged list, so input validation can check the names a
project reports (``[report] metrics``) without importing the metrics themselves.
"""

from __future__ import annotations

import re

from evidencedesk.errors import UnknownNameError

METRIC_FORMS = ("recall@k", "precision@k", "hit@k", "mrr", "ndcg@k", "ndcg@k:linear", "ndcg@k:exp")
_NAME = re.compile(r"^(recall|precision|hit|ndcg|judged)@([1-9][0-9]*)(?::(exp|linear))?$")
# read by the engine, never reported as a quality metric: how much of a top k is judged at all
DIAGNOSTIC = ("judged",)


def split_metric(name: object) -> tuple[str, int | None, str]:
    """(kind, cut-off, nDCG gain) of ``recall@k``, ``precision@k``, ``hit@k``, ``mrr``,
    ``ndcg@k[:linear|:exp]`` or the diagnostic ``judged@k`` (case and surrounding spaces
    ignored); anything else is an `UnknownNameError` listing the forms."""
    text = name.strip().lower() if isinstance(name, str) else ""
    if text == "mrr":
        return "mrr", None, "exp"
    m = _NAME.match(text)
    if m is None or (m.group(3) and m.group(1) != "ndcg"):
        raise UnknownNameError("metric", name, METRIC_FORMS)
    return m.group(1), int(m.group(2)), m.group(3) or "exp"
