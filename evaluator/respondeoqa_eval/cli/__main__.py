"""`python -m respondeoqa_eval.cli`: the `respondeoqa-eval` command."""

import sys

from . import main

sys.exit(main())
