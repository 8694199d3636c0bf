"""The package version: one place, read by the build backend, the site footer and results.json."""

# the version of the package (PEP 440), as `evidencedesk --version` prints it
__version__ = "0.1.0"
