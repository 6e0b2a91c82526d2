"""What a table column is to Gradio's `Dataframe`: its cell type and its width."""

from __future__ import annotations

from typing import Literal

ColumnType = Literal["str", "number", "bool", "date", "markdown", "html"]
"""How a column's cells are shown (`gr.Dataframe(datatype=...)`)."""

Width = str | int
"""A column's width: CSS ("120px") or pixels (`gr.Dataframe(column_widths=...)`)."""
