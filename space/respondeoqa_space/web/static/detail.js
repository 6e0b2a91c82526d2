// The entry detail's own script, run once by the page (board_page.js) with `element` its root
// and `props` its properties. It fetches an entry's detail from the app's detail route (HTML the
// server escaped cell by cell; no Gradio event, no session, no queue) when
// - the board's script announces a row click (a `respondeoqa-entry` event with the row's key),
// - the form is sent with an entry's number ("#12", "12") or key ("e:12"),
// - the page's address names one (`?entry=e:12`: the link a submission's answer gives).
// Only the latest request is shown. A shown entry's key goes into the page's address (the view
// can be shared, and loading that address shows it again) and is announced with its coverage
// (a `respondeoqa-shown` event: the board marks its row, on its coverage's table). The detail
// then scrolls into view; asked for by the address, the board scrolls to the entry's marked row
// instead, and the detail only when the row is not on the board (a `respondeoqa-marked` event
// says which).
let latest = 0;
let fromAddress = null;  // the key the address asked for, until the board has marked its row

function show(key, how) {
  if (!key) return;
  const mine = ++latest;
  const url = new URL(props.detail_src, location.href);
  url.searchParams.set("entry", key);
  // the board's switch: the numbers without suspected gold errors (kept in the address)
  const without = new URLSearchParams(location.search).get("without");
  if (without) url.searchParams.set("without", without);
  fetch(url, {cache: "no-store"})
    // an entry that is not shown answers 404 with its own line of HTML
    .then((r) => (r.ok || r.status === 404 ? r.text() : Promise.reject(r.status)))
    .then((html) => html, () => props.detail_error)
    .then((html) => {
      if (mine !== latest) return;
      props.value = html;
      const said = element.querySelector(".detail-msg[data-key]");
      const shown = said && said.dataset.key;
      fromAddress = how === "address" && shown ? shown : null;
      if (!fromAddress && how !== "switch") element.scrollIntoView({behavior: "smooth", block: "start"});
      if (!shown) return;
      const address = new URL(location.href);
      address.searchParams.set("entry", shown);
      history.replaceState(history.state, "", address);
      document.dispatchEvent(new CustomEvent("respondeoqa-shown", {
        detail: {key: shown, coverage: said.dataset.coverage, how},
      }));
    });
}

document.addEventListener("respondeoqa-entry", (e) => show(e.detail, "click"));
// the board's switch moved: the entry shown, again, with the switch's numbers
document.addEventListener("respondeoqa-without", () => {
  const said = element.querySelector(".detail-msg[data-key]");
  if (said) show(said.dataset.key, "switch");
});
document.addEventListener("respondeoqa-marked", (e) => {
  if (e.detail.key !== fromAddress) return;
  fromAddress = null;
  if (!e.detail.found) element.scrollIntoView({behavior: "smooth", block: "start"});
});
element.addEventListener("submit", (e) => {
  e.preventDefault();
  const box = element.querySelector("input[name=entry]");
  const text = box ? box.value.trim() : "";
  const number = /^#?\s*(\d+)$/.exec(text);
  show(number ? `e:${number[1]}` : text, "form");
});
show(new URLSearchParams(location.search).get("entry"), "address");
