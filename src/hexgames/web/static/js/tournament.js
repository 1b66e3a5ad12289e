// A tournament's page, live: the server drew it (it works without this script); here
// /ws/tournaments/<id> pushes the tournament whenever it changes, and the status, the
// standings, the games and the podium are drawn again from it. When the visitor is
// paired in a new game, the page says so and opens it (an arena re-pairs at once).

import { el } from "./common.js";
import { t } from "./i18n.js";
import { countdowns } from "./tournament_clock.js";

const $ = (id) => document.getElementById(id);
const root = $("tournament");
const id = root.dataset.id;
const me = root.dataset.player || null;
const OPENED = "hexgames.tournament.opened";  // game ids this browser was sent to
let retry = 1000;
let names = {};

function opened() {
  try { return new Set(JSON.parse(sessionStorage.getItem(OPENED) || "[]")); } catch { return new Set(); }
}

function remember(gameId) {
  const seen = opened();
  seen.add(gameId);
  sessionStorage.setItem(OPENED, JSON.stringify([...seen].slice(-200)));
}

function name(player) { return names[player] || "?"; }

function status(view) {
  const node = $("tournament-status");
  if (view.status === "created") {
    node.replaceChildren(el("span", { class: "countdown", "data-kind": "starts",
      "data-ms": view.countdown_ms, "data-at": Date.now() }));
  } else if (view.status === "running" && view.kind === "arena") {
    node.replaceChildren(el("span", { class: "countdown", "data-kind": "ends",
      "data-ms": view.remaining_ms, "data-at": Date.now() }));
  } else if (view.status === "running") {
    node.textContent = t("Round {number} of {rounds}", { number: view.round, rounds: view.rounds });
  } else {
    node.textContent = t("Finished");
  }
  countdowns(node);
  $("player-count").textContent = t("{count} of {most} players",
    { count: view.players, most: view.max_players });
}

function standings(view) {
  const rows = view.standings.map((line) => {
    const extra = view.kind === "swiss"
      ? [el("td", { text: line.tiebreaks.buchholz }), el("td", { text: line.tiebreaks.sonneborn_berger })]
      : [el("td", { text: line.tiebreaks.performance ?? "" })];
    return el("tr", { class: line.player === me ? "you" : null },
      el("td", { text: line.rank }),
      el("td", {}, el("a", { href: `/player/${encodeURIComponent(line.name)}`, text: line.name }),
        line.on_fire ? el("span", { class: "fire", title: t("on a streak: wins count double"), text: " 🔥" }) : null,
        line.withdrawn ? el("small", { text: ` (${t("left")})` }) : null),
      el("td", { text: line.score }), el("td", { text: line.games }), ...extra);
  });
  const body = $("standings").tBodies[0];
  body.replaceChildren(...(rows.length ? rows
    : [el("tr", { class: "empty" }, el("td", { colspan: 6, text: t("Nobody has joined yet.") }))]));
}

function result(game) {
  if (game.result === "first") return "1–0";
  if (game.result === "second") return "0–1";
  if (game.result === "draw") return "½–½";
  return game.second ? t("playing") : "";
}

function games(view) {
  const items = [...view.games].reverse().map((game) => {
    const round = view.kind === "swiss" ? `${t("Round {number}", { number: game.round })}: ` : "";
    const text = `${round}${name(game.first)} – ${
      game.second ? name(game.second) : t("bye")} ${result(game)}`;
    return el("li", {}, game.game_id ? el("a", { href: `/play/${game.game_id}`, text }) : text);
  });
  $("tournament-games").replaceChildren(...(items.length ? items
    : [el("li", { class: "empty", text: t("No games yet.") })]));
}

function podium(view) {
  const section = $("podium");
  section.hidden = !view.podium;
  if (!view.podium) return;
  section.querySelector("ol").replaceChildren(...view.podium.map((line) =>
    el("li", { class: `place-${line.rank}` },
      el("a", { href: `/player/${encodeURIComponent(line.name)}`, text: line.name }),
      " ", el("span", { text: line.score }))));
}

function yourGame(view) {
  const mine = view.games.find((game) => game.game_id && game.result === null && game.second
    && (game.first === me || game.second === me));
  const note = $("your-game");
  note.hidden = !mine;
  if (!mine) return;
  note.replaceChildren(el("a", { class: "button primary", href: `/play/${mine.game_id}`,
    text: t("Your game is ready: play") }));
  if (!opened().has(mine.game_id)) {
    remember(mine.game_id);
    location.assign(`/play/${mine.game_id}`);
  }
}

function draw(view) {
  names = view.names || {};
  status(view);
  standings(view);
  games(view);
  podium(view);
  if (me) yourGame(view);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/tournaments/${encodeURIComponent(id)}`);
  socket.addEventListener("open", () => { retry = 1000; $("conn").dataset.state = "open"; });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "tournament") draw(message);
  });
  socket.addEventListener("close", () => {
    $("conn").dataset.state = "closed";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 15000);
  });
}

countdowns(root);
connect();
