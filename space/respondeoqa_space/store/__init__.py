"""The leaderboard's storage: the SQLite working copy (`database`), its tables and migrations
(`schema`), compact per-entry blobs (`compact`), submission quotas (`quota`), the record's file
format (`record`), typed reads of the record's untrusted files (`fields`), the Hub repo of
record (`hub`), the sync between the two (`sync`) and the group commit that batches new
entries into one record commit (`groupcommit`)."""

from .database import IdTakenError, RecordProblem, Store
from .models import (
    DuplicateContentError,
    DuplicateSubmissionError,
    Entry,
    PredictionRow,
    Submission,
    prediction_rows,
    sha256_bytes,
)
from .record import entry_path

__all__ = [
    "DuplicateContentError",
    "DuplicateSubmissionError",
    "Entry",
    "IdTakenError",
    "PredictionRow",
    "RecordProblem",
    "Store",
    "Submission",
    "entry_path",
    "prediction_rows",
    "sha256_bytes",
]
