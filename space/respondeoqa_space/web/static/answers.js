// The answers page (web/answers_page.py): the server renders everything; this script only
// - puts the view's own link in the address bar (every choice spelled out, the entries the
//   page chose when none were given among them), so that copying it reproduces the view;
// - shows a new choice as soon as a picker changes (the form's button does it without script);
// - walks with the arrow keys (← previous, → next) when no field has the focus.
(() => {
  const main = document.getElementById("answers");
  if (!main) return;
  const own = main.dataset.self;
  if (own) {
    const url = new URL(own, location.href);
    if (url.href !== location.href) history.replaceState(null, "", url.href);
  }
  const form = main.querySelector(".answers-form");
  if (form) {
    for (const select of form.querySelectorAll("select")) {
      select.addEventListener("change", () => form.requestSubmit());
    }
  }
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const field = event.target.closest && event.target.closest("input, select, textarea, button");
    if (field) return;
    const rel = { ArrowLeft: "prev", ArrowRight: "next" }[event.key];
    const link = rel && main.querySelector(`.answers-walk a[rel="${rel}"]`);
    if (link) {
      event.preventDefault();
      location.href = link.href;
    }
  });
})();
