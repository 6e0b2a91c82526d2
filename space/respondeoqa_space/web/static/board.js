// The board's own script, run once by the page (board_page.js) with `element` its root and
// `props` its properties (setting `props.value` shows new HTML). The page comes with the
// default table in it (rendered by the server); a tab that picked another breakdown or
// coverage on an earlier page load gets that table from the app's board route at once. Then,
// all in the page:
// - the Breakdown and Coverage pickers (in the board's HTML, with today's choices) fetch that
//   table from the same route (the board is aria-busy meanwhile); only the latest answer is
//   shown;
// - a header click sorts the rows of each coverage section (ranks restart per section);
// - the search box hides the rows shown that do not match at once, then asks the board route
//   for every row of the coverage that matches (`q`: model, submitter, entry number...), each
//   with its rank; the pager's buttons fetch another page of a coverage's rows (the board
//   shows BOARD_MAX_ROWS of them at a time), and a section cut short on "every coverage"
//   offers the next page of its coverage;
// - the switch "Without suspected gold errors" asks for the board (and the entry detail)
//   with `without=flagged`, kept in the page's address;
// - the Filters menu (size, weights, reasoning, the paper's rows, entries the leaderboard
//   evaluated) hides rows; the Columns menu shows the optional columns;
// - a click on an entry's row marks it and announces its key (a `respondeoqa-entry` event):
//   the entry detail's script (detail.js) fetches and shows it;
// - an entry the detail shows (a `respondeoqa-shown` event: its key, its coverage and how it
//   was asked for) has its row marked; when the table in view does not hold it, the table of
//   its coverage is fetched first. Asked for by the page's address (`?entry=e:12`, the link a
//   submission's answer gives), the marked row is scrolled into view; either way a
//   `respondeoqa-marked` event says whether the row is on the board.
// Listeners sit on the root, which stays when a new table arrives; sort, filters, picked
// columns, the marked row, the open menu and the legend's open state are applied again then,
// and the picked columns are kept in localStorage, the breakdown and coverage in
// sessionStorage (board_page.js reads them on the next page load of this browser tab).
const WITHOUT = "flagged";  // ?without=flagged: the numbers without suspected gold errors
const MAKING_WAIT = 5000;  // ms before a board whose variant is being made is asked again
const state = {
  query: "", sortCol: null, sortDir: 1, filters: {paper: true}, cols: {}, legend: false, loads: 0,
  picked: null, pending: null,  // the marked row's key; a shown entry awaiting its table
  menu: null,  // the open menu's class (board-filters, board-columns): a new table keeps it open
  without: new URLSearchParams(location.search).get("without") === WITHOUT, making: null,
};
try {
  state.cols = JSON.parse(localStorage.getItem("respondeoqa-columns") || "{}");
} catch (e) {
  state.cols = {};
}
if (!props.value) {
  // this tab's picks are not the page's table: that table now (board_page.js adds the picks)
  fetch(window.respondeoqaBoardSrc(props.board_src), {cache: "no-store"})
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => html, () => props.board_error)
    .then((html) => {
      if (state.loads) return;  // a pick of this page load came first
      props.value = html;
      whileMaking(() => load(picked("view"), picked("coverage"), 1));
    });
}
const SEARCH_WAIT = 250;  // ms after the last key before the server is asked
function load(view, coverage, page, entry) {
  const mine = ++state.loads;
  element.setAttribute("aria-busy", "true");
  const url = new URL(props.board_src, location.href);
  url.searchParams.set("view", view);
  url.searchParams.set("coverage", coverage);
  url.searchParams.delete("page");
  url.searchParams.delete("q");
  if (page && page > 1) url.searchParams.set("page", String(page));
  if (state.query.trim()) url.searchParams.set("q", state.query.trim());
  url.searchParams.delete("entry");
  if (entry) url.searchParams.set("entry", entry);  // the page of its coverage that holds it
  url.searchParams.delete("without");
  if (state.without) url.searchParams.set("without", WITHOUT);
  fetch(url, {cache: "no-store"})
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => html, () => props.board_error)
    .then((html) => {
      if (mine !== state.loads) return;
      props.value = html;
      element.removeAttribute("aria-busy");
      whileMaking(() => load(view, coverage, page, entry));
    });
  try {
    sessionStorage.setItem("respondeoqa-board", JSON.stringify({view, coverage}));
  } catch (err) { /* storage off: the picks last for this page */ }
}

// while the numbers without suspected gold errors are being made (the board says so and
// shows the paper's), the board is asked for again, until they are in
function whileMaking(again) {
  clearTimeout(state.making);
  if (state.without && element.querySelector('.without-note[data-without="making"]')) {
    state.making = setTimeout(again, MAKING_WAIT);
  }
}

// the switch: in the page's address (a link reproduces the view), the board and the entry
// detail asked for again
function setWithout(on) {
  state.without = on;
  const address = new URL(location.href);
  if (on) address.searchParams.set("without", WITHOUT);
  else address.searchParams.delete("without");
  history.replaceState(history.state, "", address);
  load(picked("view"), picked("coverage"), 1);
  document.dispatchEvent(new CustomEvent("respondeoqa-without", {detail: on}));
}

const sections = () => Array.from(element.querySelectorAll("table.board tbody"));
const rows = () => Array.from(element.querySelectorAll("table.board tbody tr[data-key]"));

// mark the picked entry's row (a tint, and aria-current for screen readers); the row or null
function mark() {
  let found = null;
  for (const tr of rows()) {
    const on = tr.dataset.key === state.picked;
    tr.classList.toggle("picked", on);
    if (on) {
      tr.setAttribute("aria-current", "true");
      found = tr;
    } else {
      tr.removeAttribute("aria-current");
    }
  }
  return found;
}

// an entry shown in the detail: its row marked, on its coverage's table; said once done
function reveal(shown) {
  const tr = mark();
  const coverage = element.querySelector('select[data-board="coverage"]');
  const listed = coverage && Array.from(coverage.options).some((o) => o.value === shown.coverage);
  if (!tr && listed && !shown.fetched) {
    // its coverage's table, at the page that holds its row (a search is cleared: it hid it)
    state.pending = {...shown, fetched: true};  // again once that table is in
    state.query = "";
    coverage.value = shown.coverage;
    load(element.querySelector('select[data-board="view"]').value, shown.coverage, 1, shown.key);
    return;
  }
  if (tr && shown.how === "address") tr.scrollIntoView({block: "center"});
  document.dispatchEvent(new CustomEvent("respondeoqa-marked", {detail: {key: shown.key, found: Boolean(tr)}}));
}
document.addEventListener("respondeoqa-shown", (e) => {
  state.picked = e.detail.key;
  state.pending = null;
  reveal(e.detail);
});

function keep(tr) {
  const f = state.filters, d = tr.dataset;
  const q = state.query.trim().toLowerCase();
  if (q !== "" && !tr.textContent.toLowerCase().includes(q)) return false;
  if (!f.paper && d.kind === "paper") return false;
  if (f.verified && d.verified !== "1") return false;
  if (f.weights && d.weights !== f.weights) return false;
  if (f.reasoning && d.reasoning !== f.reasoning) return false;
  const size = d.params === "" ? null : Number(d.params);
  const min = f.min === undefined || f.min === "" ? null : Number(f.min);
  const max = f.max === undefined || f.max === "" ? null : Number(f.max);
  if ((min !== null || max !== null) && size === null) return false;  // size not known
  if (min !== null && size < min) return false;
  if (max !== null && size > max) return false;
  return true;
}

function filterRows() {
  for (const tr of rows()) tr.hidden = !keep(tr);
  // the download matches: the board route and its CSV take verified=1 (ranked among them)
  const csv = element.querySelector("a.board-csv");
  if (csv) {
    const url = new URL(csv.getAttribute("href"), location.href);
    if (state.filters.verified) url.searchParams.set("verified", "1");
    else url.searchParams.delete("verified");
    csv.setAttribute("href", url.href);
  }
  for (const body of sections()) {
    const shown = body.querySelectorAll("tr[data-key]:not([hidden])").length;
    body.hidden = shown === 0;
  }
}

function sortRows() {
  const th = element.querySelector(`table.board th[data-heading="${state.sortCol}"]`);
  if (!th) return;
  const num = th.dataset.type === "num";
  const col = state.sortCol;
  const key = (tr) => {
    const td = tr.children[col];
    if (!td) return null;
    // the cell's own text: a model's name is cut in pieces by its <wbr>s, the line under a
    // number (an interval, a rank range) and the Hub link are elements of their own
    const text = Array.from(td.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join("");
    if (!num) return text;
    const value = parseFloat(text);
    return Number.isNaN(value) ? null : value;  // the missing mark
  };
  for (const body of sections()) {
    const sorted = Array.from(body.querySelectorAll("tr[data-key]")).sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === null || y === null) return (x === null) - (y === null);  // missing values last
      return (num ? x - y : String(x).localeCompare(String(y))) * state.sortDir;
    });
    for (const tr of sorted) body.appendChild(tr);
  }
  for (const h of element.querySelectorAll("table.board th[data-heading]")) {
    h.removeAttribute("aria-sort");
  }
  th.setAttribute("aria-sort", state.sortDir > 0 ? "ascending" : "descending");
}

function showColumns() {
  for (const box of element.querySelectorAll(".board-columns input[data-col]")) {
    const col = Number(box.dataset.col);
    const head = element.querySelector(`table.board th[data-heading="${col}"]`);
    const on = Boolean(state.cols[head ? head.dataset.name : col]);
    box.checked = on;
    if (head) head.classList.toggle("on", on);
    for (const tr of rows()) {
      const td = tr.children[col];
      if (td) td.classList.toggle("on", on);
    }
  }
}

function restoreControls() {
  const legend = element.querySelector("details.board-legend");
  if (legend) legend.open = state.legend;
  for (const menu of element.querySelectorAll("details.board-menu")) {
    menu.open = menu.classList.contains(state.menu);  // a search's answer came with it open
  }
  const box = element.querySelector(".board-search");
  if (box && box.value !== state.query) box.value = state.query;
  const without = element.querySelector("input[data-without]");
  if (without) without.checked = state.without;
  for (const input of element.querySelectorAll("[data-filter]")) {
    const value = state.filters[input.dataset.filter];
    if (input.type === "checkbox") input.checked = Boolean(value);
    else if (value !== undefined) input.value = value;
  }
}

const picked = (name) => {
  const select = element.querySelector(`select[data-board="${name}"]`);
  return select ? select.value : "";
};
let searching = null;
function search() {
  // the rows shown are filtered at once; every row of the coverage that matches comes next
  clearTimeout(searching);
  searching = setTimeout(() => load(picked("view"), picked("coverage"), 1), SEARCH_WAIT);
}

element.addEventListener("input", (e) => {
  const t = e.target;
  if (t.classList.contains("board-search")) {
    const before = state.query.trim();
    state.query = t.value;
    if (state.query.trim() !== before) search();
  } else if (t.dataset.without !== undefined) {
    setWithout(t.checked);
    return;
  } else if (t.dataset.filter) {
    state.filters[t.dataset.filter] = t.type === "checkbox" ? t.checked : t.value;
  } else if (t.dataset.col !== undefined) {
    const head = element.querySelector(`table.board th[data-heading="${t.dataset.col}"]`);
    state.cols[head ? head.dataset.name : t.dataset.col] = t.checked;
    try {
      localStorage.setItem("respondeoqa-columns", JSON.stringify(state.cols));
    } catch (err) { /* private browsing: the pick lasts for this page */ }
    showColumns();
    return;
  } else {
    return;
  }
  filterRows();
});
element.addEventListener("change", (e) => {
  const pick = e.target.closest("select[data-board]");
  if (pick) {
    load(picked("view"), picked("coverage"), 1);
    return;
  }
  if (e.target.tagName === "SELECT") e.target.dispatchEvent(new Event("input", {bubbles: true}));
});
// `toggle` does not bubble: caught on its way down
element.addEventListener("toggle", (e) => {
  if (e.target.matches && e.target.matches("details.board-legend")) state.legend = e.target.open;
  if (e.target.matches && e.target.matches("details.board-menu")) {
    const name = Array.from(e.target.classList).find((c) => c !== "board-menu");
    if (e.target.open) state.menu = name;
    else if (state.menu === name) state.menu = null;
  }
}, true);
element.addEventListener("click", (e) => {
  for (const menu of element.querySelectorAll("details.board-menu[open]")) {
    if (!menu.contains(e.target)) menu.open = false;  // a click elsewhere closes a menu
  }
  const pager = e.target.closest("button[data-page]");
  if (pager) {
    // a page of this coverage, or (a section cut short on "every coverage") of that one
    load(picked("view"), pager.dataset.coverage || picked("coverage"), Number(pager.dataset.page));
    return;
  }
  const th = e.target.closest("table.board thead th[data-heading]");
  if (th) {
    const col = Number(th.dataset.heading);
    const higherFirst = th.dataset.type === "num" && col !== 0;
    state.sortDir = col === state.sortCol ? -state.sortDir : (higherFirst ? -1 : 1);
    state.sortCol = col;
    sortRows();
    return;
  }
  if (e.target.closest("a")) return;  // a link in a row (the model's Hub page)
  const tr = e.target.closest("table.board tbody tr[data-key]");
  if (!tr) return;
  state.picked = tr.dataset.key;
  state.pending = null;
  mark();
  document.dispatchEvent(new CustomEvent("respondeoqa-entry", {detail: tr.dataset.key}));
});
new MutationObserver(() => {
  restoreControls();
  if (state.sortCol !== null) sortRows();
  showColumns();
  filterRows();
  if (state.pending && !element.hasAttribute("aria-busy")) {
    const shown = state.pending;
    state.pending = null;
    reveal(shown);
  } else {
    mark();
  }
}).observe(element, {childList: true});
