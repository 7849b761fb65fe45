// The console works without this script; with it, a search box (data-filter="#teams")
// hides the rows that do not match as the head referee types, before pressing 搜索.
"use strict";

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
