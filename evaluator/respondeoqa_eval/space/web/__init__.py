"""The Space on the web: the Gradio app and its launch (`app`), the app's own routes
(`routes`), client identity and upload limits (`clients`), the page-shell cache
(`pagecache`), the page's words (`copy`), and the board's script, stylesheet and template
(`static/`)."""
