"""The package version: its one home (pyproject.toml reads it; reports and signatures import it)."""

__version__ = "0.1.0"
