"""Evaluation requests on Hugging Face Jobs (`respondeoqa-space dispatch`): no GPU machine
of the operator's own. `flavors.py`: the hardware, its prices (with their source) and the rule
from a model's weights to a flavor; `command.py`: one request as one Job (the pinned vLLM
image, the script installing this package and running `respondeoqa-space worker --once --request ID`,
secrets, timeout, labels) and what the Job's worker reads of it; `dispatcher.py`: the rounds
(watch, settle, launch; caps and the limit of Jobs); `cli.py`: its command line."""
