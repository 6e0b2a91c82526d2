// The entry detail's own script, run once by the page (board_page.js) with `element` its root
// and `props` its properties. It fetches an entry's detail from the app's detail route (HTML the
// server escaped cell by cell; no Gradio event, no session, no queue) when
// - the board's script announces a row click (a `respondeoqa-entry` event with the row's key),
// - the form is sent with an entry's number ("#12", "12") or key ("e:12"),
// - the page's address names one (`?entry=e:12`),
// and then scrolls the detail into view. Only the latest request is shown.
let latest = 0;

function show(key) {
  if (!key) return;
  const mine = ++latest;
  const url = new URL(props.detail_src, location.href);
  url.searchParams.set("entry", key);
  fetch(url, {cache: "no-store"})
    // an entry that is not shown answers 404 with its own line of HTML
    .then((r) => (r.ok || r.status === 404 ? r.text() : Promise.reject(r.status)))
    .then((html) => html, () => props.detail_error)
    .then((html) => {
      if (mine !== latest) return;
      props.value = html;
      element.scrollIntoView({behavior: "smooth", block: "start"});
    });
}

document.addEventListener("respondeoqa-entry", (e) => show(e.detail));
element.addEventListener("submit", (e) => {
  e.preventDefault();
  const box = element.querySelector("input[name=entry]");
  const text = box ? box.value.trim() : "";
  const number = /^#?\s*(\d+)$/.exec(text);
  show(number ? `e:${number[1]}` : text);
});
show(new URLSearchParams(location.search).get("entry"));
