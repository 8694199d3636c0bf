"""The report site: Results presented as a plain-data model, templates, charts, an atomic build.

Import names from their modules (`evidencedesk.report._model`, `.render`, `.cli` ...): this package
file stays empty so that ``python -m evidencedesk.report`` loads nothing before its ``__main__``
can catch a Ctrl-C.
"""
