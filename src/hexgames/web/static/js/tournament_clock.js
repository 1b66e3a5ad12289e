// Countdowns of the tournament pages: an element with class "countdown", data-ms (the
// ms left when it was drawn, at data-at, or the page's load) and data-kind ("starts" or
// "ends") shows the time left as m:ss until it reaches 0.

import { t } from "./i18n.js";

const loaded = Date.now();
let timer = null;
let roots = [];

function format(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function refresh() {
  for (const root of roots) {
    for (const node of root.querySelectorAll(".countdown[data-ms]")) {
      const left = Number(node.dataset.ms) - (Date.now() - Number(node.dataset.at || loaded));
      const time = format(left);
      if (node.dataset.kind === "ends") node.textContent = t("ends in {time}", { time });
      else if (left > 0) node.textContent = t("starts in {time}", { time });
      else node.textContent = t("waiting for players");  // a Swiss needs two to start
    }
  }
}

export function countdowns(root) {
  if (!roots.includes(root)) roots.push(root);
  refresh();
  if (timer === null) timer = setInterval(refresh, 1000);
}
