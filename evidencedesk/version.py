"""The package version: one place, read by the build backend, the site footer and results.json."""

__version__ = "0.1.0"
