"""The functions the task YAMLs name with `!function utils.<name>`; they live in respondeoqa_eval."""

from respondeoqa_eval.harness.lm_eval_task import (  # noqa: F401
    bleu_english,
    bleu_english_variable_refs,
    bleu_latin,
    bleu_latin_variable_refs,
    doc_to_target,
    doc_to_text,
    load_docs,
    process_results,
)
