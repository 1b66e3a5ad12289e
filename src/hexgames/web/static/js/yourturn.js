// "Your turn": the games of this browser's identity waiting for its move (correspondence
// and real time), listed on the home page and in the lobby. A module of its own so that
// any page can show the list by having an element with id "your-turn".

import { el } from "./common.js";
import { t } from "./i18n.js";

function remaining(deadline) {
  if (!deadline) return "";
  const ms = deadline - Date.now();
  if (ms <= 0) return " · " + t("time is up");
  const hours = ms / 3_600_000;
  if (hours >= 24) {
    return " · " + t("{days}d {hours}h left",
      { days: Math.floor(hours / 24), hours: Math.floor(hours % 24) });
  }
  if (hours >= 1) {
    return " · " + t("{hours}h {minutes}m left",
      { hours: Math.floor(hours), minutes: Math.floor((ms % 3_600_000) / 60_000) });
  }
  return " · " + t("{minutes} min left", { minutes: Math.ceil(ms / 60_000) });
}

/** "Ann vs Bob" (the players' names as the language joins them). */
function versus(names) {
  return names.length ? names.reduce((first, second) => t("{first} vs {second}", { first, second })) : "";
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
    el("span", { class: "what" }, el("strong", { text: t(game.title) }), ` ${versus(game.names)}`),
    el("span", { class: "time", text: `${game.time_text ?? game.time}${remaining(game.deadline)}` }),
    el("a", { class: "button small primary", href: `/play/${encodeURIComponent(game.id)}`,
      text: t("Play") }))));
}

showYourTurn();
