"""lm-evaluation-harness task files (`lm_eval --include_path` this folder; see harness.task_dir)."""
