"""Deprecated module paths: documented modules that moved when the core was put in folders
(issue 28) still import, with a DeprecationWarning naming the new path.

No file stands at an old path (git then follows each move as a rename): a finder at the end of
`sys.meta_path`, installed by the package's `__init__`, answers for the old names only, with a
module that re-exports the new module's names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

MOVED = {
    "respondeoqa_eval.items": "respondeoqa_eval.analysis.items",
    "respondeoqa_eval.items_cli": "respondeoqa_eval.cli.items",
    "respondeoqa_eval.breakdowns": "respondeoqa_eval.data.breakdowns",
}
"""Old module path -> new module path (the old ones appear in earlier docs and users' code)."""


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # a plain new module

    def exec_module(self, module: ModuleType) -> None:
        new = MOVED[module.__name__]
        warnings.warn(
            f"{module.__name__} moved to {new}; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        target = importlib.import_module(new)
        module.__dict__.update({k: v for k, v in vars(target).items() if not k.startswith("__")})
        module.__doc__ = f"Deprecated alias of `{new}`."


def install() -> None:
    """Answer for the old paths (once; after every other finder, so a real module wins)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
