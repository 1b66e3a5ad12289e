// The game page: one WebSocket to the server, the board, and everything around it.
// The server is the authority: it sends the state (and, on our turn, the legal actions
// with their gestures); we only send what the player clicked, in notation.

import {
  absolute, api, engineReady, gameIdFromPath, inviteFor, rememberToken, tokenFor,
} from "./api.js";
import { Board } from "./board.js";
import { cap, el, renderMoves, renderPlayers, showBanner, showMe } from "./common.js";
import { localizeBoards, t, tn } from "./i18n.js";
import { DEFAULT_TOOL, Picker, allowedNow, orList, shownLabel } from "./input.js";
import { Hint } from "./hint.js";
import { lag, onPong, renderOnline, startPings } from "./online.js";
import { Premove, premoveAllowed, renderPremoveBar } from "./premove.js";
import { ConditionalMoves } from "./conditional.js";

const $ = (id) => document.getElementById(id);
const gameId = gameIdFromPath();
showMe($("me-link"));

// A token in the link is removed from the address bar at once (so that it stays out of
// the history and of copied addresses), then presented to the server once: an online
// invitation is claimed by the first browser to open it, which gets a seat credential
// of its own; whoever opens it later watches, and is told so.
const params = new URLSearchParams(location.search);
const linkToken = params.get("token");
if (linkToken) history.replaceState(null, "", location.pathname);
let token = tokenFor(gameId);
let notice = null;
// Without a remembered seat, ask anyway: a seat held by this browser's identity (taken on
// another device, or given by the lobby) comes back as a credential for this browser.
if (linkToken || !token) {
  try {
    const claimed = await api(`/api/games/${encodeURIComponent(gameId)}/claim`, {
      method: "POST", body: { token: linkToken, have: token },
    });
    if (claimed.token) { rememberToken(gameId, claimed.token); token = claimed.token; }
    notice = claimed.notice_text ?? claimed.notice;
  } catch (error) {
    notice = error.message;
  }
}

let state = null;
let boardPieces = null;  // the board shown, its SVG cut at "><" (what svg_patch edits)
let picker = null;
let socket = null;
let pending = false;
let retry = 500;
let toastTimer = null;
// The board turned half a turn (the second player's side at the bottom): each player
// sees their own side at the bottom by default; the Flip button overrides it.
let flipChoice = null;  // null: the default for this viewer
// Browsing the move list during a live game: the number of actions shown, or null.
let browsing = null;
const touch = matchMedia("(hover: none), (pointer: coarse)").matches;

const board = new Board($("board"), { onPoint: clickPoint, onHover: hoverPoint });
const hint = new Hint($("hint-button"), board, (message, kind) => toast(message, kind));
const premove = new Premove();  // real-time games: one action queued on the opponent's turn
// Correspondence games: lines stored on the server that play themselves.
const conditional = new ConditionalMoves({ panel: $("conditional"), gameId, token: () => token,
  flipped, toast: (message, kind) => toast(message, kind) });

function flipped() {
  if (flipChoice !== null) return flipChoice;
  return Boolean(state && state.mode !== "hotseat" && state.your_seats.length === 1
    && state.your_seats[0] === 1);
}

function toast(message, kind = "error") {
  const node = $("toast");
  node.textContent = message;
  node.className = `toast show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.className = "toast"; }, 4200);
}

// ------------------------------------------------------------------ connection
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // delta=1 and svg=patch: states carry only the new moves and the board's changes.
  const query = `?delta=1&svg=patch${token ? `&token=${encodeURIComponent(token)}` : ""}`;
  socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}${query}`);
  setConn(t("connecting…"), "wait");
  socket.addEventListener("open", () => {
    retry = 500; setConn(t("online"), "ok");
    // The chat (chat.js) reads its rooms again: messages may have come while away.
    document.documentElement.dataset.gameSocket = "open";
    document.dispatchEvent(new CustomEvent("hexgames:socket-open"));
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") receive(complete(message));
    else if (message.type === "error") { pending = false; toast(message.message); refreshInput(); }
    else if (message.type === "pong") onPong();
    else if (message.type === "chat") {  // a chat message: the chat panel's (chat.js)
      document.dispatchEvent(new CustomEvent("hexgames:chat", { detail: message }));
    }
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 4404) { setConn(t("no such game"), "bad"); showMissing(); return; }
    if (event.code === 4409) { setConn(t("cannot open this game"), "bad"); return; }
    pollWhileDown();
    if (event.code === 4001) {  // this seat opened the game in another tab or device
      setConn(t("open in another tab: click to play here"), "bad");
      $("conn").addEventListener("click", () => { retry = 500; connect(); }, { once: true });
      return;
    }
    setConn(t("reconnecting…"), "wait");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  });
}

function setConn(text, kind) {
  const node = $("conn");
  node.textContent = text;
  node.dataset.state = kind;
}

function showMissing() {
  for (const id of ["undo", "resign", "download", "replay", "flip", "legend-button", "analyse",
    "hint-button"]) {
    $(id).hidden = true;
  }
  $("input-bar").hidden = true;
  $("board").replaceChildren(el("div", { class: "missing" },
    el("h2", { text: t("This game does not exist") }),
    el("p", { text: t("The link may be mistyped, or the game was stored on another server.") }),
    el("a", { class: "button primary", href: "/", text: t("Start a new game") })));
}

let httpPoll = null;
/** While the socket is down or refused, the state comes over HTTP every few seconds (and
 * with the answer to each of our own actions), so the board stays current and playable. */
function pollWhileDown() {
  if (httpPoll) return;
  const look = async () => {
    if (socket && socket.readyState === WebSocket.OPEN) {
      clearInterval(httpPoll);
      httpPoll = null;
      return;
    }
    try {
      const query = token ? `?token=${encodeURIComponent(token)}` : "";
      const next = await api(`/api/games/${encodeURIComponent(gameId)}${query}`);
      if (!state || next.ply !== state.ply || next.is_over !== state.is_over
          || next.your_turn !== state.your_turn) receive(complete(next));
    } catch { /* the next look, or the socket, brings it */ }
  };
  look();
  httpPoll = setInterval(look, 3000);
}

/** What a player may still do over HTTP while the socket is down or was refused: a
 * player is never kept from moving by a socket (issue 39, row 1). */
const HTTP_ROUTES = { action: "actions", undo: "undo", resign: "resign" };

function send(message, { quiet = false } = {}) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
    return true;
  }
  const route = HTTP_ROUTES[message.type];
  if (route && token) {
    const { type: _type, ...fields } = message;
    api(`/api/games/${encodeURIComponent(gameId)}/${route}`, {
      method: "POST", body: { ...fields, token },
    }).then((next) => receive(complete(next)))
      .catch((error) => { pending = false; toast(error.message); refreshInput(); });
    return true;
  }
  if (quiet) return false;
  toast(t("not connected to the server; retrying…"));
  return false;
}

// --------------------------------------------------------------------- state
/** The whole state from a delta one (see docs/web.md): the move list from the one
 * already shown and `history_tail`, the board from the one shown and `svg_patch`
 * (edits of the SVG cut at "><", applied like `splice`). */
function complete(next) {
  if (Array.isArray(next.history_tail)) {
    const kept = next.history_since && state ? state.history.slice(0, next.history_since) : [];
    next.history = kept.concat(next.history_tail);
  }
  if (typeof next.svg === "string") {
    boardPieces = next.svg.split("><");
  } else if (Array.isArray(next.svg_patch) && boardPieces) {
    for (const [at, remove, pieces] of next.svg_patch) boardPieces.splice(at, remove, ...pieces);
    next.svg = boardPieces.join("><");
  }
  return next;
}

function receive(next) {
  const fresh = !state || state.ply !== next.ply || state.your_turn !== next.your_turn
    || state.is_over !== next.is_over;
  const moved = Boolean(state && next.ply === state.ply + 1);  // one action: animate it
  if (state && !state.is_over && next.is_over) {  // the chat's rooms open up (chat.js)
    document.dispatchEvent(new CustomEvent("hexgames:game-over"));
  }
  if (state && state.ply !== next.ply) $("toast").className = "toast";  // old news
  state = next;
  pending = false;
  document.title = `${t(state.title)} · hexgames`;
  document.body.dataset.game = state.game;
  $("rules-link").href = `/rules/${state.game}`;
  $("rules-link").textContent = t("{game} rules", { game: t(state.title) });
  $("tournament-link").hidden = !state.tournament;  // a tournament's game: back to it
  if (state.tournament) $("tournament-link").href = `/tournament/${encodeURIComponent(state.tournament)}`;
  $("replay").href = `/replay/${state.id}`;
  $("download").href = `/api/games/${state.id}/record`;
  $("analyse").href = `/analysis/${state.id}`;
  $("analyse").hidden = state.mode === "online" && !state.is_over;  // no engine help mid-game
  if (fresh) picker = new Picker(state.legal);
  playPremove();  // the turn arrived: a queued premove goes at once
  renderOverlayToggles();
  $("flip").setAttribute("aria-pressed", flipped() ? "true" : "false");
  if (browsing !== null) showBrowsing();
  else if (overlays.size || flipped()) loadOverlays({ animate: moved });  // when it arrives
  else board.show(state.svg, { animate: moved });
  renderPlayers($("players"), state);
  renderStatus();
  renderScore();
  renderInvite();
  renderMoves($("moves"), state.history, { current: browsing ?? state.history.length,
    onPick: browse });
  const n = state.history.length;
  $("ply-count").textContent = n ? tn("{n} action", "{n} actions", n) : "";
  showBanner($("banner"), state, $("final-breakdown"));
  $("notation-form").hidden = !(state.role === "player" && !state.is_over);
  if (state.is_over && state.role === "player" && state.mode !== "online") {
    $("banner").append(el("button", { class: "primary small", id: "again", text: t("Play again"),
      onclick: playAgain }));
  }
  $("undo").disabled = !state.can_undo;
  $("undo").hidden = state.mode === "online" || state.role !== "player";
  $("resign").hidden = state.role !== "player" || state.is_over;
  hint.update(state, token);
  renderOnline(state, send);
  conditional.update(state);
  refreshInput();
}

function renderStatus() {
  const node = $("status");
  const mover = state.players.find((p) => p.seat === state.current_seat);
  let text;
  const color = t(cap(state.to_move));
  if (state.is_over) text = state.result ? cap(state.result_text ?? state.result) : t("Game over");
  else if (state.ai_error) text = cap(state.ai_error_text ?? state.ai_error);
  else if (state.thinking) text = t("The computer is thinking…");
  else if (state.your_turn && state.mode !== "hotseat") text = t("Your turn");
  else if (state.your_turn) text = t("{color} to play", { color });
  else if (state.role === "spectator") text = t("{color} to play · you are watching", { color });
  else if (state.mode === "online" && Array.isArray(state.present)
    && !state.present.includes(state.current_seat)) {
    text = state.history.length ? t("{color} is not connected; the game waits", { color })
      : t("Waiting for your friend to join…");
  } else {
    text = mover && mover.kind === "ai" ? t("Waiting for the computer…")
      : t("Waiting for {color}…", { color });
  }
  const parts = [el("span", { class: `headline${state.your_turn ? " go" : ""}`, text })];
  if (!state.is_over && state.actions_left !== null && state.actions_left !== undefined) {
    const n = state.actions_left;
    parts.push(el("span", { class: "sub",
      text: tn("{n} action left this turn", "{n} actions left this turn", n) }));
  } else if (!state.is_over && !state.turn_start) {
    parts.push(el("span", { class: "sub", text: t("turn in progress") }));
  }
  if (state.your_turn && state.legal.length) {
    // What the turn still allows, in the words of the gestures ("sprout at g7, or end turn").
    const allowed = orList(allowedNow(state.legal));
    parts.push(el("span", { class: "sub allowed", id: "allowed",
      text: t("You may {actions}.", { actions: allowed }) }));
  }
  node.replaceChildren(...parts);
}

function renderScore() {
  const node = $("score");
  const score = state.score;
  if (score === null || score === undefined) { node.hidden = true; return; }
  node.hidden = false;
  const rows = typeof score === "object" && !Array.isArray(score)
    ? Object.entries(score) : [["score", score]];
  node.replaceChildren(el("h3", { text: t("Score") }), ...rows.map(([key, value]) =>
    el("div", { class: "score-row" }, el("span", { class: `swatch swatch-${key}` }),
      el("span", { text: t(cap(key)) }),
      el("strong", { text: typeof value === "object" ? JSON.stringify(value) : String(value) }))));
}

function renderInvite() {
  const node = $("invite");
  const invite = inviteFor(state.id);
  if (state.mode !== "online" || !invite || state.is_over) { node.hidden = true; return; }
  node.hidden = false;
  const row = (label, path) => {
    const url = absolute(path);
    const input = el("input", { readonly: true, value: url, "aria-label": label, onfocus: (e) => e.target.select() });
    return el("label", { class: "link-row" }, el("span", { text: label }), input,
      el("button", { class: "ghost small", text: t("Copy"), type: "button",
        onclick: async () => {
          try { await navigator.clipboard.writeText(url); toast(t("link copied"), "ok"); }
          catch { input.select(); }
        } }));
  };
  node.replaceChildren(el("h3", { text: t("Invite a friend") }),
    row(t("Send to your opponent"), invite.opponent), row(t("Spectators"), invite.spectate),
    invite.mine ? row(t("Your own seat (to continue on another device; keep it private)"),
      invite.mine) : null);
}

// An overlay (e.g. Dendria's fertilized or plantable cells) is a different drawing of the
// same position: fetch it whenever the position changes while an overlay is on.
const overlays = new Set();

function renderOverlayToggles() {
  const node = $("overlays");
  if (!state.overlays || !state.overlays.length) { node.hidden = true; return; }
  node.hidden = false;
  if (node.dataset.built === state.game) return;
  node.dataset.built = state.game;
  node.replaceChildren(el("h3", { text: t("Show") }), ...state.overlays.map((name) => el("label", {
    class: "overlay-toggle" },
    el("input", { type: "checkbox", "data-overlay": name, onchange: (event) => {
      if (event.target.checked) overlays.add(name); else overlays.delete(name);
      loadOverlays();
    } }),
    el("span", { text: t(cap(name.replace(/-/g, " "))) }))));
}

async function loadOverlays({ animate = false } = {}) {
  const ply = state.ply;
  const flip = flipped();
  let svg = state.svg;
  if (overlays.size || flip) {
    try {
      const query = encodeURIComponent([...overlays].join(","));
      const data = await api(`/api/games/${encodeURIComponent(gameId)}/board?overlays=${query}`
        + (flip ? "&flip=true" : ""));
      if (data.ply !== ply) return;
      svg = data.svg;
    } catch (error) { toast(error.message); return; }
  }
  if (state.ply !== ply || browsing !== null || flip !== flipped()) return;
  board.show(svg, { animate });
  $("board").dataset.flipped = String(flip);
  refreshInput();
}

// ------------------------------------------------------------ past positions
/** Show the board after the first `ply` actions (the live game goes on meanwhile). */
async function browse(ply) {
  if (!state) return;
  if (ply >= state.history.length) { stopBrowsing(); return; }
  browsing = ply;
  if (picker) picker.reset();
  $("choices").replaceChildren();
  renderMoves($("moves"), state.history, { current: ply, onPick: browse });
  showBrowsing();
  refreshInput();
}

async function showBrowsing() {
  const ply = browsing;
  const total = state.history.length;
  $("browse").hidden = false;
  $("browse-text").textContent = ply === 0
    ? tn("Start position (of {n} action)", "Start position (of {n} actions)", total)
    : t("After action {ply} of {total}: {action}",
      { ply, total, action: state.history[ply - 1].notation });
  try {
    const data = await api(`/api/games/${encodeURIComponent(gameId)}/replay?ply=${ply}`
      + (flipped() ? "&flip=true" : ""));
    if (browsing !== ply) return;
    board.show(data.svg);
    board.mark({ interactive: false });
    $("board").dataset.ply = String(ply);
  } catch (error) { toast(error.message); }
}

function stopBrowsing() {
  if (browsing === null) return;
  browsing = null;
  $("browse").hidden = true;
  delete $("board").dataset.ply;
  if (state) receive(state);
}

// --------------------------------------------------------------------- input
function refreshInput() {
  const active = Boolean(state && state.your_turn && !pending && picker && browsing === null);
  const tools = $("tools"), choices = $("choices"), buttons = $("buttons");
  if (!active) {
    tools.replaceChildren();
    choices.replaceChildren();
    buttons.replaceChildren();
    board.mark({ interactive: false });
    $("input-bar").classList.toggle("idle", true);
    $("hint").textContent = "";
    if (premoveAllowed(state) && !state.your_turn && !pending && browsing === null) showPremove();
    return;
  }
  $("input-bar").classList.toggle("idle", false);
  premove.learn(state.game, state.legal, occupied);  // how many clicks an action takes
  const toolList = picker.tools();
  tools.replaceChildren(...(toolList.length > 1 ? toolList.map((tool) => el("button", {
    class: `tool${tool === picker.tool ? " selected" : ""}`, "data-tool": tool || "default",
    "aria-pressed": tool === picker.tool ? "true" : "false",
    text: tool === DEFAULT_TOOL ? t("Move") : t(cap(tool)),
    onclick: () => { picker.selectTool(tool); choices.replaceChildren(); refreshInput(); },
  })) : []));
  const offered = picker.buttons();
  buttons.replaceChildren(...offered.map((entry) => el("button", {
    class: "action-button", "data-action": entry.action, text: cap(shownLabel(entry)),
    title: entry.explanation || null, onclick: () => submit(entry.action),
  })));
  // What a button does where the game explains it (Dendria's swap): shown, not hovered.
  buttons.append(...offered.filter((entry) => entry.explanation).map((entry) => el("p", {
    class: "explain", "data-explains": entry.action,
  }, el("strong", { text: `${cap(shownLabel(entry))}: ` }), entry.explanation)));
  const targets = picker.targets();
  const labels = picker.nextLabels();
  // Tags on the board when they stay legible: after a first click (the destinations),
  // or when few points finish an action at once (a sprout, a grow...).
  const finishing = [...targets].filter((point) => labels.get(point) !== "…");
  const tags = finishing.length > 0 && (picker.clicks.length > 0 || targets.size <= 12);
  board.mark({ interactive: true, targets, selected: picker.clicks, labels, tags });
  const going = touch ? t("Tap a highlighted point to continue · tap it again to cancel")
    : t("Click a highlighted point to continue · Esc cancels");
  const starting = touch ? t("Tap a highlighted point") : t("Click a highlighted point");
  $("hint").textContent = targets.size ? (picker.clicks.length ? going : starting) : "";
}

function hoverPoint(point) {
  if (!point || !board.labels.has(point) || !state || !state.your_turn) return;
  const label = board.labels.get(point);
  if (label && label !== "…" && $("board").querySelector(`.hit.highlighted[data-point="${point}"]`)) {
    $("hint").textContent = `${point}: ${label}`;
  }
}

function clickPoint(point) {
  if (browsing !== null) { toast(t("you are looking at an earlier position"), "info"); return; }
  if (state && !state.your_turn && !pending && premoveAllowed(state)) {
    queuePremove(point);
    return;
  }
  if (!state || !state.your_turn || pending || !picker) {
    if (state && !state.is_over && state.role === "player" && !pending) {
      toast(state.thinking ? t("the computer is thinking…") : t("it is not your turn"));
    }
    return;
  }
  const result = picker.click(point);
  $("choices").replaceChildren();
  if (result.kind === "send") submit(result.entry.action);
  else if (result.kind === "choose") offerChoices(result.entries);
  else if (result.kind === "error") toast(result.message);
  refreshInput();
}

/** One button per action the clicks so far complete. */
function offerChoices(entries) {
  $("choices").replaceChildren(el("span", { class: "choose", text: t("Which one?") }),
    ...entries.map((entry) => el("button", {
      class: "choice", "data-action": entry.action, title: entry.action,
      onclick: () => submit(entry.action),
    }, el("strong", { text: cap(shownLabel(entry)) }),
    el("small", { text: entry.action }))));
}

// ------------------------------------------------------------------ premoves
/** Whether a piece stands on `point` (the board's drawing says: an element of a colour). */
function occupied(point) {
  return Boolean(board.svg && board.svg.querySelector(
    `[data-point="${CSS.escape(point)}"][data-color]:not(.hit)`));
}

function queuePremove(point) {
  premove.use(state.game);
  if (premove.click(point, occupied) === "cancelled") toast(t("premove cancelled"), "info");
  refreshInput();
}

function showPremove() {
  premove.use(state.game);
  renderPremoveBar(premove, { tools: $("tools"), buttons: $("buttons"), hint: $("hint"),
    root: $("input-bar") }, { changed: refreshInput, touch });
  board.mark({ interactive: false, queued: premove.points });
}

/** The turn arrived: the queued premove is sent at once if it is legal now, else
 * dropped with a note (several actions for its clicks: they are offered). */
function playPremove() {
  if (!premoveAllowed(state)) { premove.cancel(); return; }
  if (!state.your_turn || pending || !premove.queued) return;
  const outcome = premove.resolve(state.legal);
  if (outcome.kind === "send") submit(outcome.entry.action);
  else if (outcome.kind === "choose") {
    picker.selectTool(outcome.tool);
    picker.clicks = [...outcome.clicks];
    offerChoices(outcome.entries);
  } else toast(outcome.message, "info");
}

function submit(action) {
  if (pending) return;
  if (send({ type: "action", action, ply: state.ply, lag: lag() })) {
    pending = true;
    picker.reset();
    $("choices").replaceChildren();
    refreshInput();
  }
}

/** A new game with the same game, options and opponent (same seat against the AI). */
async function playAgain() {
  const ai = state.players.find((p) => p.kind === "ai");
  const seat = state.mode === "ai" ? state.your_seats[0] : 0;
  try {
    const created = await api("/api/games", { method: "POST", body: {
      game: state.game, mode: state.mode, options: state.options, seat,
      level: ai ? ai.level : 3,
    } });
    rememberToken(created.id, created.token);
    location.href = `/play/${created.id}`;
  } catch (error) { toast(error.message); }
}

// ------------------------------------------------------------------ controls
$("undo").addEventListener("click", () => send({ type: "undo" }));
$("resign").addEventListener("click", () => {
  const dialog = $("confirm");
  // The server resigns for the side to act when this browser holds it (hot-seat: both).
  const seat = state.your_seats.includes(state.current_seat) ? state.current_seat
    : Math.min(...state.your_seats);
  const side = state.players.find((p) => p.seat === seat);
  const other = state.players.find((p) => p.seat !== seat);
  const names = { side: t(cap(side.color)), other: t(cap(other.color)) };
  $("confirm-text").textContent = state.mode === "hotseat"
    ? t("{side} resigns: {other} wins. Resign for {side}?", names)
    : t("Resign this game? You play {side}; {other} wins.", names);
  $("confirm").querySelector('button[value="yes"]').textContent = t("Resign for {side}", names);
  dialog.returnValue = "";
  dialog.showModal();
});
$("confirm").addEventListener("close", () => {
  if ($("confirm").returnValue === "yes") send({ type: "resign" });
});
$("flip").addEventListener("click", () => {
  flipChoice = !flipped();
  $("flip").setAttribute("aria-pressed", flipChoice ? "true" : "false");
  if (browsing !== null) showBrowsing(); else loadOverlays();
});
$("browse-back").addEventListener("click", stopBrowsing);
$("legend-button").addEventListener("click", openLegend);
$("notation-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("notation").value.trim();
  if (!text) return;
  if (!state.your_turn) {
    toast(state.thinking ? t("the computer is thinking…") : t("it is not your turn"));
    return;
  }
  stopBrowsing();
  submit(text);
  $("notation").value = "";
});

/** The legend lives on the rules page (drawn by the engine): show that section here. */
async function openLegend() {
  const dialog = $("legend");
  dialog.showModal();
  if (dialog.dataset.game === state?.game) return;
  try {
    const response = await fetch(`/rules/${encodeURIComponent(state.game)}`);
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const section = page.getElementById("legend");
    if (!section) throw new Error(t("this game has no legend"));
    section.querySelector("h2")?.remove();
    $("legend-body").replaceChildren(document.importNode(section, true));
    localizeBoards($("legend-body"));
    dialog.dataset.game = state.game;
  } catch (error) {
    $("legend-body").replaceChildren(el("p", { class: "hint",
      text: t("The legend could not load: {reason}", { reason: error.message }) }));
  }
}

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea")) return;
  if (event.key === "Escape" && browsing !== null) { stopBrowsing(); return; }
  if ((event.key === "ArrowLeft" || event.key === "ArrowRight") && state && state.history.length) {
    // Step through the game's past positions (Right at the latest returns to the game).
    const shown = browsing ?? state.history.length;
    event.preventDefault();
    browse(Math.max(0, shown + (event.key === "ArrowLeft" ? -1 : 1)));
    return;
  }
  if (event.key === "Escape" && premove.cancel()) {
    toast(t("premove cancelled"), "info");
    refreshInput();
    return;
  }
  if (event.key === "Escape" && picker) { picker.reset(); $("choices").replaceChildren(); refreshInput(); }
  if (event.key === "f" || event.key === "F") $("flip").click();
  if ((event.key === "u" || event.key === "U") && state && state.can_undo) send({ type: "undo" });
  if ((event.key === "h" || event.key === "H") && !$("hint-button").hidden) $("hint-button").click();
});

// The token is checked by the server; fetch once over HTTP so a bad id shows at once.
api(`/api/games/${encodeURIComponent(gameId)}`).catch((error) => {
  if (/no game/.test(error.english || error.message)) { showMissing(); }
});
// The game's socket needs the engine: after an install, once the server has prepared it.
engineReady().then(connect, connect);
startPings(send);
if (notice) toast(notice, "info");
