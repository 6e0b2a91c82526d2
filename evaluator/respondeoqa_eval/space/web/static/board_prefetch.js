// Starts fetching the board before the board's component is mounted: the board's script
// (board.js) takes the answer from window.respondeoqaBoard, under way or arrived. It runs
// twice on a page load: in the page as it is parsed, right after the config Gradio inlines
// (web/pagecache.py puts it there), and once Gradio has read that config (launch()'s `head`,
// for pages that are not kept); the second run finds the fetch started and does nothing.
// The URL is the board component's `board_src` in the page's config, with the breakdown and
// coverage the reader last picked in this browser tab (board.js keeps them in sessionStorage,
// so that they last from page to page); the fetch is board.js's own (same URL, no-store).
(() => {
  window.respondeoqaBoardSrc = (src) => {
    const url = new URL(src, location.href);
    let picks = {};
    try {
      picks = JSON.parse(sessionStorage.getItem("respondeoqa-board") || "{}") || {};
    } catch (e) {
      picks = {};  // storage off, or not ours: the defaults
    }
    for (const name of ["view", "coverage"]) {
      if (typeof picks[name] === "string") url.searchParams.set(name, picks[name]);
    }
    return url.href;
  };
  if (window.respondeoqaBoard) return;
  const components = (window.gradio_config && window.gradio_config.components) || [];
  const board = components.find((c) => c.props && c.props.props && c.props.props.board_src);
  if (!board) return;
  const src = window.respondeoqaBoardSrc(board.props.props.board_src);
  const html = fetch(src, {cache: "no-store"})
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)));
  html.catch(() => {});  // board.js handles a failure; never an unhandled rejection here
  window.respondeoqaBoard = {src, html};
})();
