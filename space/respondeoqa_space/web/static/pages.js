() => {
  // The Gradio pages' own script (app.py gives it to Gradio, which runs it once a page has
  // loaded): a page's result message (web/events.py: a `.msg` box) comes into view when it
  // appears or says something new. A submission's answer appeared under the form, below the
  // fold of a 900 px window, and nothing said it had come.
  const said = new WeakMap();  // each box: the text last brought into view
  function show() {
    for (const box of document.querySelectorAll(".block.msg")) {
      const text = box.textContent.trim();
      if (!text || said.get(box) === text || !box.getClientRects().length) continue;
      said.set(box, text);
      const where = box.getBoundingClientRect();
      if (where.top < 0 || where.bottom > window.innerHeight) {
        box.scrollIntoView({block: where.height > window.innerHeight ? "start" : "nearest"});
      }
    }
  }
  new MutationObserver(show).observe(document.body, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ["class", "style", "hidden"],
  });
  show();
}
