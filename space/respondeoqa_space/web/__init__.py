"""The Space on the web: the server and the Gradio app mounted on it (`app`), the board's own
main page (`board_page`), the app's own routes (`routes`), client identity and upload limits
(`clients`), the caches of pages and frontend files (`pagecache`), the page's words (`copy`),
and the page's template, scripts and stylesheets (`static/`)."""
