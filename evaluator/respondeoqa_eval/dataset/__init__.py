"""The RespondeoQA dataset: `datasets` builder, Hub export, dataset card and push.

Needs the `dataset` extra (`pip install respondeoqa-eval[dataset]`).
"""
