"""The functions the task YAMLs name with `!function utils.<name>`; they live in respondeoqa_eval
(`pip install respondeoqa-eval`), so lm-eval scores exactly as `respondeoqa-eval score` does."""

try:
    from respondeoqa_eval.harness import lm_eval_task as _task
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "the RespondeoQA tasks need the respondeoqa-eval package: pip install respondeoqa-eval"
    ) from exc

RespondeoQATask = _task.task_class()
bleu = _task.bleu
bleu_variable_refs = _task.bleu_variable_refs
chrf = _task.chrf
doc_to_target = _task.doc_to_target
doc_to_text = _task.doc_to_text
extract_answers = _task.extract_answers
load_docs = _task.load_docs
process_docs = _task.process_docs
process_docs_into_english = _task.process_docs_into_english
process_docs_into_latin = _task.process_docs_into_latin
process_results = _task.process_results
