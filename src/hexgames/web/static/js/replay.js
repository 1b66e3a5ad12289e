// The replay viewer: step through any game, finished or not, one action at a time.
// Boards are fetched from the server (which replays the actions) and kept in a cache.

import { api, gameIdFromPath, tokenFor } from "./api.js";
import { Board } from "./board.js";
import { renderMoves, renderPlayers, showBanner } from "./common.js";

const $ = (id) => document.getElementById(id);
const gameId = gameIdFromPath();
const board = new Board($("board"));
const cache = new Map();
let state = null;
let ply = 0;

async function boardAt(n) {
  if (!cache.has(n)) {
    cache.set(n, api(`/api/games/${encodeURIComponent(gameId)}/replay?ply=${n}`).then((r) => r.svg));
  }
  return cache.get(n);
}

async function go(n) {
  if (!state) return;
  ply = Math.max(0, Math.min(state.history.length, n));
  $("counter").textContent = `${ply} / ${state.history.length}`;
  $("first").disabled = $("prev").disabled = ply === 0;
  $("next").disabled = $("last").disabled = ply === state.history.length;
  renderMoves($("moves"), state.history, { current: ply, onPick: go });
  const shown = ply;
  let svg;
  try {
    svg = await boardAt(ply);
  } catch (error) {
    cache.delete(shown);  // let a later step retry
    $("status").textContent = `Could not load this position: ${error.message}`;
    return;
  }
  if (shown !== ply) return;  // a later step was asked for meanwhile
  board.show(svg);
  $("board").dataset.ply = String(ply);
  const atEnd = ply === state.history.length;
  $("banner").hidden = true;
  if (atEnd) showBanner($("banner"), state);
  const move = state.history[ply - 1];
  $("status").replaceChildren(Object.assign(document.createElement("span"), {
    className: "headline",
    textContent: ply === 0 ? "Start position" : `After ${move.notation} (${move.color})`,
  }));
  if (ply + 1 <= state.history.length) {
    boardAt(ply + 1).catch(() => cache.delete(ply + 1));  // prefetch the next board
  }
}

async function init() {
  try {
    state = await api(`/api/games/${encodeURIComponent(gameId)}`);
  } catch (error) {
    $("board").textContent = error.message;
    return;
  }
  document.title = `Replay · ${state.title} · hexgames`;
  $("back").href = `/play/${gameId}`;
  $("back").textContent = tokenFor(gameId) && !state.is_over ? "Back to the game" : "Open the game";
  renderPlayers($("players"), { ...state, your_seats: [] }, { showTurn: false });
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(ply - 1));
  $("next").addEventListener("click", () => go(ply + 1));
  $("last").addEventListener("click", () => go(state.history.length));
  document.addEventListener("keydown", (event) => {
    const keys = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: state.history.length,
      ArrowUp: 0, ArrowDown: state.history.length };
    if (event.key in keys) { event.preventDefault(); go(keys[event.key]); }
  });
  const start = Number(new URLSearchParams(location.search).get("ply"));
  go(Number.isFinite(start) && start > 0 ? start : state.history.length);
}

init();
