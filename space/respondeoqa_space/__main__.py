"""`python -m respondeoqa_space`: the `respondeoqa-space` command."""

import sys

from .cli import main

sys.exit(main())
