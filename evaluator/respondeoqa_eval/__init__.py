"""RespondeoQA evaluator: the paper's scoring protocol, with every breakdown."""

__version__ = "0.1.0"
