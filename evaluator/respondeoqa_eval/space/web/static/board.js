// The board's own script: the HTML component runs it once, with `element` its root, `props`
// its properties and `trigger` its events. A page load fetches the table from the app's board
// route (cached HTML, no Gradio event, no session, no queue); then it sorts on a header click,
// filters as the search box is typed in, and a click on an entry's row fires `select` with the
// row's key (the entry detail). Listeners sit on the root, which Gradio keeps when a new table
// arrives; sort and filter are re-applied then.
let query = "", sortCol = null, sortDir = 1;
if (!props.value) {
  fetch(new URL(props.board_src, location.href), {cache: "no-store"})
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => { if (!props.value) props.value = html; })
    .catch(() => {
      if (!props.value) props.value = props.board_error;
    });
}
const rows = () => Array.from(element.querySelectorAll("table.board tbody tr"));
function filterRows() {
  const q = query.trim().toLowerCase();
  for (const tr of rows()) tr.hidden = q !== "" && !tr.textContent.toLowerCase().includes(q);
}
function sortRows() {
  const body = element.querySelector("table.board tbody");
  const th = element.querySelector(`table.board th[data-heading="${sortCol}"]`);
  if (!body || !th) return;
  const num = th.dataset.type === "num";
  const key = (tr) => {
    const td = tr.children[sortCol];
    if (!td) return null;
    const text = td.textContent;
    if (!num) return text;
    const value = parseFloat(text);
    return Number.isNaN(value) ? null : value;  // the missing mark
  };
  const sorted = rows().sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null);  // missing values last
    return (num ? x - y : String(x).localeCompare(String(y))) * sortDir;
  });
  for (const tr of sorted) body.appendChild(tr);
  for (const h of element.querySelectorAll("table.board th")) h.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
}
element.addEventListener("input", (e) => {
  if (!e.target.classList.contains("board-search")) return;
  query = e.target.value;
  filterRows();
});
element.addEventListener("click", (e) => {
  const th = e.target.closest("table.board th");
  if (th) {
    const col = Number(th.dataset.heading);
    const higherFirst = th.dataset.type === "num" && col !== 0;
    sortDir = col === sortCol ? -sortDir : (higherFirst ? -1 : 1);
    sortCol = col;
    sortRows();
    return;
  }
  const tr = e.target.closest("table.board tbody tr[data-key]");
  if (!tr) return;
  for (const r of rows()) r.classList.remove("picked");
  tr.classList.add("picked");
  trigger("select", {index: [rows().indexOf(tr), 0], value: tr.dataset.key, selected: true});
});
new MutationObserver(() => {
  const box = element.querySelector(".board-search");
  if (box && box.value !== query) box.value = query;
  if (sortCol !== null) sortRows();
  filterRows();
}).observe(element, {childList: true});
