// TV (/tv/<game>): the featured game, watched as any spectator watches (the game's
// socket, the board and the players' cards of the game page: board.js, common.js,
// online.js's clocks). /api/tv/<game> says which game it is; when the game ends, or
// while there is none, the page asks again every few seconds and switches to the next.

import { api } from "./api.js";
import { Board } from "./board.js";
import { cap, el, renderPlayers, showMe } from "./common.js";
import { t } from "./i18n.js";
import { renderOnline } from "./online.js";

const $ = (id) => document.getElementById(id);
const gameName = document.querySelector("main.tv").dataset.game;
const LOOK_MS = 3000;        // asking again while there is no game, or it ended
const WATCHING_MS = 20_000;  // asking again while a game is being shown
const board = new Board($("board"));
// What this page shows (the browser tests read it): the game and how many it showed.
const status = { game: null, shown: 0, over: false };
window.hexgamesTv = status;
let featured = null;  // the /api/tv answer being shown
let socket = null;
let lookTimer = null;

function later(ms) {
  clearTimeout(lookTimer);
  lookTimer = setTimeout(look, ms);
}

async function look() {
  let answer = null;
  try { answer = await api(`/api/tv/${encodeURIComponent(gameName)}`); } catch { /* again */ }
  if (answer && answer.game_id && answer.game_id !== status.game) {
    watch(answer);
  } else if (answer && !answer.game_id && (!featured || status.over)) {
    showNone();
  }
  later(status.game && !status.over ? WATCHING_MS : LOOK_MS);
}

function showNone() {
  if (socket) { socket.onclose = null; socket.close(); socket = null; }
  featured = null;
  status.game = null;
  $("tv-empty").hidden = false;
  $("board").replaceChildren();
  $("players").replaceChildren();
  $("status").textContent = "";
  $("tv-match").textContent = "";
  $("tv-watch").hidden = true;
}

function describe(answer) {
  const names = answer.players.map((p) => `${p.name} (${p.rating})`).join(" – ");
  const kind = answer.rated ? t("rated") : t("casual");
  return [names, answer.time, kind].filter(Boolean).join(" · ");
}

function watch(answer) {
  if (socket) { socket.onclose = null; socket.close(); }
  featured = answer;
  status.game = answer.game_id;
  status.over = false;
  status.shown += 1;
  $("tv-empty").hidden = true;
  $("tv-match").textContent = describe(answer);
  $("tv-watch").href = `/play/${encodeURIComponent(answer.game_id)}`;
  $("tv-watch").hidden = false;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const mine = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(answer.game_id)}`);
  socket = mine;
  mine.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state" && message.id === status.game) show(message);
  };
  mine.onclose = () => { if (socket === mine) { socket = null; later(LOOK_MS); } };
}

function show(state) {
  board.show(state.svg);
  renderPlayers($("players"), state);
  renderOnline(state, () => false);  // the clocks on the players' cards
  for (const player of featured.players) {
    const card = document.querySelector(`.player[data-seat="${player.seat}"] .who`);
    if (card) card.append(el("span", { class: "rating", text: ` (${player.rating})` }));
  }
  const mover = state.players.find((p) => p.seat === state.current_seat);
  if (state.is_over) {
    const result = state.result ? cap(state.result_text ?? state.result) : t("Game over");
    const next = t("the next game comes in a moment");
    $("status").textContent = [result, next].join(" · ");
    if (!status.over) { status.over = true; later(LOOK_MS); }
  } else {
    $("status").textContent = mover ? t("{color} to move", { color: t(cap(mover.color)) }) : "";
  }
}

showMe($("me-link"));
look();
