"""The committed card of the public build (`dataset_card/README.md`) and the command that
rewrites it: `python -m respondeoqa_eval.dataset.committed_card` (from a checkout's root).

Apart from card.py, which export.py imports to render a folder's card: this command builds a
folder, so it imports export.py (one direction, no circle).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

COMMITTED_CARD = Path("dataset_card") / "README.md"
"""The committed rendered card, relative to the root of a checkout."""
REGENERATE_COMMAND = "python -m respondeoqa_eval.dataset.committed_card"


def main(argv: list[str] | None = None) -> int:
    """Rewrite the committed `dataset_card/README.md` (run from the checkout's root) from a
    fresh public build."""
    from ..data.datadir import CLI_OPTION, NoData
    from ..errors import InputError
    from .export import build_folder

    parser = argparse.ArgumentParser(prog=REGENERATE_COMMAND, description=main.__doc__)
    parser.add_argument(
        "--data-dir", help="folder with the public upstream files (default: the pinned download)"
    )
    parser.add_argument(
        "--output",
        default=str(COMMITTED_CARD),
        help="default: %(default)s (from the checkout root)",
    )
    args = parser.parse_args(argv)
    if not Path(args.output).parent.is_dir():
        print(
            f"error: {Path(args.output).parent}: no such folder (run from the checkout root)",
            file=sys.stderr,
        )
        return 2
    try:
        with tempfile.TemporaryDirectory() as tmp:
            result = build_folder(Path(tmp) / "respondeoqa", data_dir=args.data_dir)
            Path(args.output).write_text(
                (result.folder / "README.md").read_text(encoding="utf-8"), encoding="utf-8"
            )
    except NoData as exc:
        print(f"error: {exc.said_as(CLI_OPTION)}", file=sys.stderr)
        return 2
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
