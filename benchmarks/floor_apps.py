"""The Gradio apps bench_space.py measures the Space against, each in its own process, on the
Space's Gradio: `python benchmarks/floor_apps.py PORT KIND`.

- markdown: one Markdown heading, the baseline of every ratio (ROW_TEXT in it);
- html: that heading and one gr.HTML holding a one-cell table with ROW_TEXT, inline in the
  page's config (no fetch, no script): what the board's component costs before any data.
"""

from __future__ import annotations

import sys

import gradio as gr

ROW_TEXT = "stored model"  # bench_space.ROW_TEXT: what each measure waits for


def build(kind: str) -> gr.Blocks:
    with gr.Blocks() as demo:
        gr.Markdown(f"# {ROW_TEXT}")
        if kind == "html":
            table = f"<table><tr><td>{ROW_TEXT}</td></tr></table>"
            gr.HTML(table, elem_id="leaderboard-table")
        elif kind != "markdown":
            raise SystemExit(f"floor_apps.py: unknown app {kind!r} (markdown, html)")
    return demo


if __name__ == "__main__":
    port, kind = int(sys.argv[1]), sys.argv[2]
    build(kind).launch(server_name="127.0.0.1", server_port=port, ssr_mode=False, quiet=True)
