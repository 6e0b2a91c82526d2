// Every Gradio page (web/app.py passes this as the app's `js`, run once when a page loads):
// a link inside a Gradio table's cell (the Items and Compare tables link each item to its
// answers page) is followed when clicked. The table takes a press on a cell to select the
// cell, which draws the cell anew and loses the click; a press on a link is kept from it. A
// click with a modifier key (a new tab, a new window) is left to the browser.
() => {
  const linkOf = (event) => event.target.closest && event.target.closest("[role=gridcell] a[href]");
  for (const type of ["pointerdown", "mousedown"]) {
    document.addEventListener(type, (event) => linkOf(event) && event.stopPropagation(), true);
  }
  document.addEventListener(
    "click",
    (event) => {
      const link = linkOf(event);
      if (!link) return;
      event.stopPropagation();
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) {
        return;
      }
      event.preventDefault();
      location.assign(link.href);
    },
    true,
  );
}
