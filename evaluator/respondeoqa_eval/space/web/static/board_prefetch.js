// Starts fetching the board as soon as the page's head runs it (Gradio's `head`, launch():
// once the app's config is read, before the components' scripts load), instead of once the
// board's component is mounted: the board's script (board.js) takes the answer from
// window.respondeoqaBoard, under way or arrived. The URL is the board component's `board_src`
// in the page's config; the fetch is board.js's own (same URL, no-store).
(() => {
  const components = (window.gradio_config && window.gradio_config.components) || [];
  const board = components.find((c) => c.props && c.props.props && c.props.props.board_src);
  if (!board) return;
  const src = board.props.props.board_src;
  const html = fetch(new URL(src, location.href), {cache: "no-store"})
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)));
  html.catch(() => {});  // board.js handles a failure; never an unhandled rejection here
  window.respondeoqaBoard = {src, html};
})();
