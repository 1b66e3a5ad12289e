// The leaderboard: one table per rating pool (a game, or one of its variants).

import { api } from "./api.js";
import { el, showMe } from "./common.js";
import { titled } from "./i18n.js";

const $ = (id) => document.getElementById(id);

async function show(pool) {
  const query = pool ? `?pool=${encodeURIComponent(pool)}` : "";
  const board = await api(`/api/leaderboard${query}`);
  $("pools").replaceChildren(...board.pools.map((p) => el("button", {
    class: `small${p.pool === board.pool ? " primary" : " ghost"}`, type: "button", role: "tab",
    "aria-selected": p.pool === board.pool ? "true" : "false", "data-pool": p.pool,
    text: titled(p.title), onclick: () => show(p.pool) })));
  $("board").querySelector("tbody").replaceChildren(...board.players.map((row) => el("tr", {},
    el("td", { text: String(row.rank) }),
    el("td", {}, el("a", { href: `/player/${encodeURIComponent(row.name)}`, text: row.name })),
    el("td", {}, el("b", { text: `${Math.round(row.rating)}${row.provisional ? "?" : ""}` }),
      el("small", { text: ` ±${Math.round(row.deviation)}` })),
    el("td", { text: String(row.games) }),
    el("td", { text: `${row.wins}/${row.losses}/${row.draws}` }))));
  $("board").hidden = !board.players.length;
  $("empty").hidden = Boolean(board.players.length);
}

showMe($("me-link"));
show(new URLSearchParams(location.search).get("pool")).catch((error) => {
  $("empty").hidden = false; $("empty").textContent = error.message;
});
