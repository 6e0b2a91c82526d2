"""The operator's worker (`respondeoqa-space worker`): claims evaluation requests from the
record, serves each model on the operator's engine (`engine.py`; `procs.py` makes a started
engine die with its worker; `sampling.py` says what sampling it applies), answers every item
with the runner, and stores the run as verified entries (`worker.py`); `cli.py` is its command
line."""
