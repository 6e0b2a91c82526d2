(on) => {
  // Compare's switch "Without suspected gold errors" in the page's address (`?without=flagged`):
  // a link reproduces the view, and the page opens with the switch as the address says
  const address = new URL(location.href);
  if (on) address.searchParams.set("without", "flagged");
  else address.searchParams.delete("without");
  history.replaceState(history.state, "", address);
  return on;
}
