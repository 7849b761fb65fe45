// The console works without this script; with it, a search box (data-filter="#teams")
// hides the rows that do not match as the head referee types, before pressing 搜索, and the
// address bar loses the message a form's answer carried (flash.py), so that it shows no
// catalog key and a reload does not say it again.
"use strict";

{
  const url = new URL(location.href);
  const carried = [...url.searchParams.keys()].filter(
    (k) => ["flash", "kind", "sig"].includes(k) || k.startsWith("p_") || k.startsWith("w_"));
  if (carried.includes("sig")) {
    carried.forEach((k) => url.searchParams.delete(k));
    history.replaceState(null, "", url);
  }
}

for (const box of document.querySelectorAll("input[data-filter]")) {
  const rows = [...document.querySelectorAll(box.dataset.filter + " > tbody > tr")];
  const texts = rows.map((row) => row.textContent.toLowerCase());
  let pending = 0;
  box.addEventListener("input", () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      const parts = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      rows.forEach((row, i) => {
        row.hidden = !parts.every((part) => texts[i].includes(part));
      });
    }, 120);
  });
}
