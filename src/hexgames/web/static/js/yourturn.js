// "Your turn": the games of this browser's identity waiting for its move (correspondence
// and real time), listed on the home page and in the lobby. A module of its own so that
// any page can show the list by having an element with id "your-turn".

import { el } from "./common.js";

function remaining(deadline) {
  if (!deadline) return "";
  const ms = deadline - Date.now();
  if (ms <= 0) return " · time is up";
  const hours = ms / 3_600_000;
  if (hours >= 24) return ` · ${Math.floor(hours / 24)}d ${Math.floor(hours % 24)}h left`;
  if (hours >= 1) return ` · ${Math.floor(hours)}h ${Math.floor((ms % 3_600_000) / 60_000)}m left`;
  return ` · ${Math.ceil(ms / 60_000)} min left`;
}

export async function showYourTurn() {
  const list = document.getElementById("your-turn");
  if (!list) return;
  let games = [];
  try {
    const response = await fetch("/api/me/turn");
    if (response.ok) games = (await response.json()).games;
  } catch { /* offline: nothing to show */ }
  const section = list.closest("section");
  if (section) section.hidden = !games.length;
  list.replaceChildren(...games.map((game) => el("li", { "data-game": game.id },
    el("span", { class: "what" }, el("strong", { text: game.title }), ` ${game.names.join(" vs ")}`),
    el("span", { class: "time", text: `${game.time}${remaining(game.deadline)}` }),
    el("a", { class: "button small primary", href: `/play/${encodeURIComponent(game.id)}`,
      text: "Play" }))));
}

showYourTurn();
