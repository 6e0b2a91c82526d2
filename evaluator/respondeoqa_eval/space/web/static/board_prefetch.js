// Starts fetching the board before the board's component is mounted: the board's script
// (board.js) takes the answer from window.respondeoqaBoard, under way or arrived. It runs
// twice on a page load: in the page as it is parsed, right after the config Gradio inlines
// (web/pagecache.py puts it there), and once Gradio has read that config (launch()'s `head`,
// for pages that are not kept); the second run finds the fetch started and does nothing.
// The URL is the board component's `board_src` in the page's config; the fetch is board.js's
// own (same URL, no-store).
(() => {
  if (window.respondeoqaBoard) return;
  const components = (window.gradio_config && window.gradio_config.components) || [];
  const board = components.find((c) => c.props && c.props.props && c.props.props.board_src);
  if (!board) return;
  const src = board.props.props.board_src;
  const html = fetch(new URL(src, location.href), {cache: "no-store"})
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)));
  html.catch(() => {});  // board.js handles a failure; never an unhandled rejection here
  window.respondeoqaBoard = {src, html};
})();
