"""Typed reads of one untrusted dict (a file read back from the record), each failure one line
naming its field: what a verified entry's evaluation block (`evaluation.py`) and an evaluation
request file (`requests/model.py`) are read with."""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any, Literal, overload


class Fields:
    """`data`'s fields, checked as they are read. A failure raises `error` with "PREFIXKEY:
    what is wrong"; `text` is what a text field may hold (`text_what` says so when it does not).
    With `defaults`, a missing flag reads False and a missing whole number 0 (files written
    before those fields); otherwise a missing field fails like a wrong one."""

    def __init__(
        self,
        data: dict[str, Any],
        *,
        error: type[Exception],
        text: re.Pattern[str],
        text_what: str,
        prefix: str = "",
        defaults: bool = False,
    ) -> None:
        self.data = data
        self._error = error
        self._text = text
        self._text_what = text_what
        self._prefix = prefix
        self._defaults = defaults

    def _fail(self, key: str, what: str) -> Exception:
        return self._error(f"{self._prefix}{key}: {what}")

    def text(self, key: str) -> str:
        value = self.data.get(key, "")
        if not isinstance(value, str) or not self._text.fullmatch(value):
            raise self._fail(key, self._text_what)
        return value

    def match(self, key: str, pattern: re.Pattern[str]) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or not pattern.fullmatch(value):
            raise self._fail(key, "malformed")
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key, False if self._defaults else None)
        if not isinstance(value, bool):
            raise self._fail(key, "must be true or false")
        return value

    @overload
    def integer(self, key: str, *, optional: Literal[False] = False, low: int = 0) -> int: ...
    @overload
    def integer(self, key: str, *, optional: bool, low: int = 0) -> int | None: ...
    def integer(self, key: str, *, optional: bool = False, low: int = 0) -> int | None:
        value = self.data.get(key, 0 if self._defaults and not optional else None)
        if value is None and optional:
            return None
        if type(value) is not int or not low <= value < 10**15:
            raise self._fail(key, "must be a whole number")
        return value

    @overload
    def number(self, key: str, *, optional: Literal[False] = False) -> float: ...
    @overload
    def number(self, key: str, *, optional: bool) -> float | None: ...
    def number(self, key: str, *, optional: bool = False) -> float | None:
        value = self.data.get(key)
        if value is None and optional:
            return None
        if (type(value) is int or type(value) is float) and math.isfinite(value) and value >= 0:
            return float(value)  # (`type(...) is`: not a bool, which JSON's true would be)
        raise self._fail(key, "must be a number")

    def when(self, key: str, *, optional: bool = False) -> str:
        value = self.text(key)
        if not value and optional:
            return ""
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise self._fail(key, "not an ISO date and time") from None
        return value
