"""The leaderboard Space: submit predictions, score, store, rank and compare (Gradio 6).

`app.py` only wires the UI; the logic lives in pure modules (`table`, `figures`, `compare`,
`paper`) and in the SQLite `store`, so that each can be tested without a browser.
"""
