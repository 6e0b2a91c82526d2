"""Errors that a user can fix: the CLI prints them as one message and exits with status 2."""

from __future__ import annotations


class InputError(Exception):
    """Bad input (gold folder, predictions file, option). The message names the problem.

    Messages never quote gold answers: they name files, line numbers, ids and fields.
    """


class ChecksumError(InputError):
    """A downloaded or cached upstream file does not match its pinned sha256."""
