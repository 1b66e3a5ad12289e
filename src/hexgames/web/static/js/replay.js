// The replay viewer: step through any game, finished or not, one action at a time.
// Boards are fetched from the server (which replays the actions) and kept in a cache.

import { api, gameIdFromPath, tokenFor } from "./api.js";
import { Board } from "./board.js";
import { cap, renderMoves, renderPlayers, showBanner } from "./common.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const gameId = gameIdFromPath();
const board = new Board($("board"));
const cache = new Map();
let state = null;
let ply = 0;
let flip = false;  // the board turned half a turn (Blue's or Light's side at the bottom)

async function boardAt(n) {
  const key = `${n}/${flip}`;
  if (!cache.has(key)) {
    cache.set(key, api(`/api/games/${encodeURIComponent(gameId)}/replay?ply=${n}`
      + (flip ? "&flip=true" : "")).then((r) => r.svg));
  }
  return cache.get(key);
}

async function go(n) {
  if (!state) return;
  ply = Math.max(0, Math.min(state.history.length, n));
  $("counter").textContent = `${ply} / ${state.history.length}`;
  $("analyse").href = `/analysis/${encodeURIComponent(gameId)}?ply=${ply}`;
  $("first").disabled = $("prev").disabled = ply === 0;
  $("next").disabled = $("last").disabled = ply === state.history.length;
  renderMoves($("moves"), state.history, { current: ply, onPick: go });
  const shown = ply;
  let svg;
  try {
    svg = await boardAt(ply);
  } catch (error) {
    cache.delete(`${shown}/${flip}`);  // let a later step retry
    $("status").textContent = t("Could not load this position: {error}", { error: error.message });
    return;
  }
  if (shown !== ply) return;  // a later step was asked for meanwhile
  board.show(svg);
  $("board").dataset.ply = String(ply);
  $("board").dataset.flipped = String(flip);
  const atEnd = ply === state.history.length;
  $("banner").hidden = true;
  $("final-breakdown").hidden = true;
  if (atEnd) showBanner($("banner"), state, $("final-breakdown"));
  const move = state.history[ply - 1];
  $("status").replaceChildren(Object.assign(document.createElement("span"), {
    className: "headline",
    textContent: ply === 0 ? t("Start position")
      : t("After {action} ({color})", { action: move.notation, color: t(cap(move.color)).toLowerCase() }),
  }));
  if (ply + 1 <= state.history.length) {
    const next = ply + 1;
    boardAt(next).catch(() => cache.delete(`${next}/${flip}`));  // prefetch the next board
  }
}

async function init() {
  try {
    const token = tokenFor(gameId);
    state = await api(`/api/games/${encodeURIComponent(gameId)}`
      + (token ? `?token=${encodeURIComponent(token)}` : ""));
  } catch (error) {
    $("board").textContent = error.message;
    return;
  }
  document.title = t("Replay · {game}", { game: state.title }) + " · hexgames";
  $("back").href = `/play/${gameId}`;
  $("analyse").hidden = state.mode === "online" && !state.is_over;  // no engine help mid-game
  $("back").textContent = tokenFor(gameId) && !state.is_over ? t("Back to the game") : t("Open the game");
  // A player of the second seat (not at one screen) sees their side at the bottom.
  flip = state.mode !== "hotseat" && state.your_seats.length === 1 && state.your_seats[0] === 1;
  $("flip").setAttribute("aria-pressed", String(flip));
  $("flip").addEventListener("click", () => {
    flip = !flip;
    $("flip").setAttribute("aria-pressed", String(flip));
    go(ply);
  });
  renderPlayers($("players"), { ...state, your_seats: [] }, { showTurn: false });
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(ply - 1));
  $("next").addEventListener("click", () => go(ply + 1));
  $("last").addEventListener("click", () => go(state.history.length));
  document.addEventListener("keydown", (event) => {
    const keys = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: state.history.length,
      ArrowUp: 0, ArrowDown: state.history.length };
    if (event.key in keys) { event.preventDefault(); go(keys[event.key]); }
    if (event.key === "f" || event.key === "F") $("flip").click();
  });
  const start = Number(new URLSearchParams(location.search).get("ply"));
  go(Number.isFinite(start) && start > 0 ? start : state.history.length);
}

init();
