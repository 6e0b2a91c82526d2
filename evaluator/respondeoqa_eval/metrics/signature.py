"""Reproducibility signatures: small immutable objects rendered the sacreBLEU way.

`Signature(name, fields).format()` gives e.g. `exact_match|lc|punct:ascii|version:0.1.0` or
`nrefs:var|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0`: an optional bare name, then
`key:value` fields (a field without value is a flag) joined by `|`, version last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Field = tuple[str, str | None]


@dataclass(frozen=True)
class Signature:
    """The settings that produced a score; two scores compare only if their signatures do."""

    fields: tuple[Field, ...]
    name: str = ""

    def format(self) -> str:
        parts = [self.name] if self.name else []
        parts += [key if value is None else f"{key}:{value}" for key, value in self.fields]
        return "|".join(parts)

    def __str__(self) -> str:
        return self.format()

    def with_field(self, key: str, value: str | None, *, before: str = "version") -> Signature:
        """A copy with one more field, placed before `before` (or last when it is absent)."""
        keys = [k for k, _ in self.fields]
        at = keys.index(before) if before in keys else len(keys)
        return Signature((*self.fields[:at], (key, value), *self.fields[at:]), self.name)

    @classmethod
    def of_sacrebleu(cls, signature: Any) -> Signature:
        """Our object for a sacreBLEU `Signature` (through its public `format()`)."""
        fields = []
        for part in signature.format().split("|"):
            key, sep, value = part.partition(":")
            fields.append((key, value if sep else None))
        return cls(tuple(fields))
