// Added to a page before its own scripts (bench_space.py, the render part): records in
// window.__shown the time (ms from navigation start) of the first animation frame in which an
// element matching `selector`, with `text` in it, is visible: laid out with a size, not hidden.
// Checked in every frame before it paints, so the figure is that frame's, not a poller's.
(selector, text) => {
  const check = () => {
    for (const el of document.querySelectorAll(selector)) {
      if (el.textContent.includes(text) && el.checkVisibility() && el.getClientRects().length) {
        window.__shown = performance.now();
        return;
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}
