// The home page's daily puzzles: one small board per game, linking to its puzzle of the
// day (the same for everyone until midnight UTC). Quietly absent when there is none or
// the server cannot draw it yet.

import { api } from "./api.js";
import { cap, el, mountSvg } from "./common.js";
import { t } from "./i18n.js";

async function showDaily() {
  const section = document.getElementById("daily-puzzles");
  if (!section) return;
  const daily = await api("/api/puzzles/daily");
  if (!daily.puzzles.length) return;
  const list = document.getElementById("daily-list");
  list.replaceChildren(...daily.puzzles.map((puzzle) => {
    const boardBox = el("span", { class: "daily-board", "aria-hidden": "true" });
    mountSvg(boardBox, puzzle.svg);
    return el("li", { "data-game": puzzle.game },
      el("a", { href: puzzle.url, "data-puzzle": puzzle.id,
        "aria-label": t("{game} puzzle of the day: {color} to play and win",
          { game: t(puzzle.title), color: t(cap(puzzle.color)) }) },
      boardBox,
      el("strong", { text: t(puzzle.title) }),
      el("small", { text: t("{color} to play · rated {rating}",
        { color: t(cap(puzzle.color)), rating: puzzle.rating }) })));
  }));
  section.dataset.date = daily.date;
  section.hidden = false;
}

showDaily().catch(() => { /* no daily puzzle: the card stays hidden */ });
