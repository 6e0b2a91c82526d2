// The board page's runner for the board's and the entry detail's scripts (board.js,
// detail.js): each gets `element` its root and `props` its properties (setting `props.value`
// shows new HTML), as an HTML component would give them. The page holds each component's root
// with its properties as JSON (`data-props`) and its value already in place: the board's
// default table, rendered by the server.
// - The board's value is everything in its root after the search box (which stays, with its
//   text and focus, when a new table arrives): a new value replaces those nodes.
// - The entry detail's value is its `.detail-body`.
// The breakdown and coverage a reader picked last in this browser tab (board.js keeps them in
// sessionStorage) are asked for at once when they are not the table in the page: the table
// in the page stays, marked busy, until the picked one arrives; so does it when the page's
// address asks for the numbers without suspected gold errors (`?without=flagged`).
(() => {
  const PICKS = "respondeoqa-board";
  function picks() {
    try {
      return JSON.parse(sessionStorage.getItem(PICKS) || "{}") || {};
    } catch (e) {
      return {};  // storage off, or not ours: the defaults
    }
  }
  // the page's address asks for the numbers without suspected gold errors (board.js)
  const switched = () => new URLSearchParams(location.search).get("without") === "flagged";
  // the board's URL with this tab's picks (board.js asks for it when it has no value)
  window.respondeoqaBoardSrc = (src) => {
    const url = new URL(src, location.href);
    const picked = picks();
    for (const name of ["view", "coverage"]) {
      if (typeof picked[name] === "string") url.searchParams.set(name, picked[name]);
    }
    if (switched()) url.searchParams.set("without", "flagged");
    return url.href;
  };

  // where each component's value is shown, and whether the page's own value stands
  const slots = {
    "leaderboard-table": (element) => ({
      set: (html) => {
        const search = element.querySelector(".board-search");
        while (search.nextSibling) search.nextSibling.remove();
        search.insertAdjacentHTML("afterend", html);
        element.removeAttribute("aria-busy");
      },
      // the table in the page, unless this tab picked another breakdown or coverage
      stands: () => {
        const picked = picks();
        const other = ["view", "coverage"].some((name) => {
          const select = element.querySelector(`select[data-board="${name}"]`);
          return typeof picked[name] === "string" && select && picked[name] !== select.value;
        });
        if (other || switched()) element.setAttribute("aria-busy", "true");
        return !other && !switched();
      },
    }),
    "entry-detail": (element) => ({
      set: (html) => { element.querySelector(".detail-body").innerHTML = html; },
      stands: () => false,  // empty until an entry is asked for
    }),
  };

  // run a component's script (`run`) on its root `element`
  window.respondeoqaMount = (element, run) => {
    const slot = slots[element.id](element);
    const props = JSON.parse(element.dataset.props || "{}");
    let value = slot.stands() ? "(the page's own)" : "";
    Object.defineProperty(props, "value", {
      get: () => value,
      set: (html) => {
        value = html;
        slot.set(html);
      },
    });
    run(element, props);
  };
})();
