"""The evaluation results layer: Settings -> evaluation stages -> typed `Results` -> results.json.

One way through: `settings` (one object from the project and the options), `evaluate` (the
named stage list that runs searches, judges lists and computes every statistic once), `types`
(plain frozen dataclasses, numbers only, no display text) and `serialize` (results.json
writing and loading, the per-question CSV, TREC runs and qrels). `evidencedesk.report` only
presents a `Results`; it computes no statistic.
"""
