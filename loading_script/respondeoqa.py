"""RespondeoQA loading script (Latin-English QA; Hudspeth, Burns and O'Connor 2026).

A thin wrapper: the builder lives in the `respondeoqa-eval` package
(`pip install "respondeoqa-eval[dataset]"`). `datasets` 5 no longer runs loading scripts through
`load_dataset`; use the builder directly,

    from respondeoqa import RespondeoQA       # or: from respondeoqa_eval.dataset.builder import ...
    builder = RespondeoQA(config_name="public")            # data_dir=... for Certamen / NLE
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")

or load a config of the Parquet folder written by `respondeoqa-eval dataset build` as the command
prints it: `load_dataset("parquet", data_dir="<folder>/public", split="test")`.

Terms: the two textbooks are public domain; NLE material may not be used to generate profit;
Certamen is copyrighted and hosted by the Junior Classical League. Certamen and NLE are never
downloaded: their configs read the user's own folder (`data_dir`).
"""

from respondeoqa_eval.dataset.builder import RespondeoQA, RespondeoQAConfig

__all__ = ["RespondeoQA", "RespondeoQAConfig"]
