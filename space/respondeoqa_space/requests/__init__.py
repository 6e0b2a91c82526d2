"""Evaluation requests: a logged-in user asks the leaderboard to run a Hub model itself.

`model.py`: a request, its presets and its record file (`requests/<id>.json`); `ledger.py`: the
record's requests read and changed by compare-and-swap (create, claim with a lease, renew,
release, fail, finish); `desk.py`: the Space's side (checks, limits, duplicates, the Hub's
model info). The operator's worker that runs them is `space/worker/`.
"""
