"""What the Space shows, as pure functions of rows: which columns each view has (`columns`),
the leaderboard tables (`frames`) and their HTML (`board`, from `templates/`), one entry's
tables (`entry`, `detail`), the legend (`legend`), Compare's statistics (`compare`) and charts
(`figures`). Numbers follow the package's one style (`respondeoqa_eval.report.numbers`)."""
