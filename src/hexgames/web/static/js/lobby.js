// The lobby: post a challenge, see the open ones live (/ws/lobby), accept one. Accepting
// starts the game for both at once: the acceptor opens it from the answer, the creator
// from the "seek_taken" message (or, if it was away, on its next visit).

import { api, rememberToken } from "./api.js";
import { cap, el, showMe } from "./common.js";
import { t } from "./i18n.js";
import { initPools, onPoolCounts, onPoolPaired } from "./pools.js";

const $ = (id) => document.getElementById(id);
const SEEKS = "hexgames.seeks";  // seek id -> the seat credential of its game to come
let catalog = null;
let retry = 500;
let shown = null;  // the lobby last received
let me = null;  // this browser's player, once known (a direct challenge names one)
let keptApart = new Set();  // case-folded names with a block between them and this player

function mySeeks() {
  try { return JSON.parse(localStorage.getItem(SEEKS) || "{}"); } catch { return {}; }
}

function saveSeeks(map) { localStorage.setItem(SEEKS, JSON.stringify(map)); }

function game() { return catalog.games.find((g) => g.name === $("seek-game").value); }

function renderForm() {
  const chosen = game();
  $("seek-color").replaceChildren(el("option", { value: "random", text: t("Random") }),
    ...chosen.colors.map((color) => el("option", { value: color, text: t(cap(color)) })));
  $("seek-options").replaceChildren(...chosen.options.map((option) => {
    const label = option.label || option.name.replace(/_/g, " ");
    if (option.kind === "bool") {
      return el("label", { class: "option toggle" },
        el("input", { type: "checkbox", "data-option": option.name, checked: Boolean(option.default) }),
        el("span", { class: "name", text: cap(label) }), el("small", { text: option.help }));
    }
    return el("label", { class: "option" }, el("span", { class: "name", text: cap(label) }),
      el("input", { type: "number", "data-option": option.name, min: option.minimum ?? null,
        max: option.maximum ?? null, value: option.default ?? "",
        placeholder: option.nullable ? t("off") : "" }),
      el("small", { text: option.help }));
  }));
}

function collectOptions() {
  const options = {};
  for (const option of game().options) {
    const input = document.querySelector(`#seek-options [data-option="${option.name}"]`);
    if (!input) continue;
    if (option.kind === "bool") options[option.name] = input.checked;
    else if (input.value.trim() === "") { if (option.nullable) options[option.name] = null; }
    else options[option.name] = input.value.trim();
  }
  return options;
}

function control() {
  const kind = $("seek-kind").value;
  if (kind === "realtime") {
    return { kind, base_s: Math.round(Number($("seek-minutes").value) * 60 * 1000) / 1000,
      increment_s: Number($("seek-increment").value) };
  }
  if (kind === "correspondence") return { kind, days: Number($("seek-days").value) };
  return null;
}

function syncKind() {
  for (const node of document.querySelectorAll(".tc-detail")) {
    node.hidden = node.dataset.kind !== $("seek-kind").value;
  }
}

async function post(event) {
  event.preventDefault();
  $("seek-error").textContent = "";
  try {
    const created = await api("/api/seeks", { method: "POST", body: {
      game: game().name, options: collectOptions(), control: control(),
      color: $("seek-color").value, rated: $("seek-rated").checked,
      target: $("seek-target").value.trim() || null,
    } });
    const map = mySeeks(); map[created.id] = created.token; saveSeeks(map);
    if (shown) render(shown);  // the lobby may have arrived before this answer
  } catch (error) {
    $("seek-error").textContent = error.message;
  }
}

function open(gameId, token) {
  rememberToken(gameId, token);
  location.assign(`/play/${encodeURIComponent(gameId)}`);
}

async function accept(seekId) {
  try {
    const taken = await api(`/api/seeks/${encodeURIComponent(seekId)}/accept`, { method: "POST" });
    open(taken.id, taken.token);
  } catch (error) {
    $("seek-error").textContent = error.message;
  }
}

async function withdraw(seekId) {
  const map = mySeeks();
  try {
    await api(`/api/seeks/${encodeURIComponent(seekId)}/cancel`, {
      method: "POST", body: { token: map[seekId] } });
    delete map[seekId]; saveSeeks(map);
  } catch (error) {
    $("seek-error").textContent = error.message;
  }
}

function describeOptions(options) {
  const parts = Object.entries(options || {}).filter(([, v]) => v !== null && v !== false)
    .map(([k, v]) => {
      const name = t(k.replace(/_/g, " "));  // the option's name in words (the catalog's label)
      return v === true ? name : `${name} ${v}`;
    });
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** A challenge of ours left the list: if it was accepted (possibly through another
 * server process, whose seek_taken message this socket does not get), open the game. */
async function followMine(lobby) {
  const listed = new Set(lobby.seeks.map((seek) => seek.id));
  for (const [seekId, token] of Object.entries(mySeeks())) {
    if (listed.has(seekId)) continue;
    try {
      const seek = await api(`/api/seeks/${encodeURIComponent(seekId)}`);
      if (seek.status === "open") continue;
      const map = mySeeks(); delete map[seekId]; saveSeeks(map);
      if (seek.game) { open(seek.game, token); return; }
    } catch { /* try again with the next lobby */ }
  }
}

/** A direct challenge that this browser's player may not accept (the server would refuse
 * it: 403), so it gets no Accept button. Names compare as the server's (case folded). */
function forSomeoneElse(seek) {
  return Boolean(seek.target) && !(me && me.name.toLowerCase() === seek.target.toLowerCase());
}

/** A challenge by a player with a block between them and this one: accepting it is refused. */
function blockedPoster(seek) {
  return keptApart.has(String(seek.by || "").toLowerCase());
}

function render(lobby) {
  shown = lobby;
  followMine(lobby);
  const mine = mySeeks();
  $("seek-list").replaceChildren(...(lobby.seeks.length ? lobby.seeks.map((seek) => el("li", {
    class: "seek", "data-seek": seek.id },
    el("span", { class: "what" }, el("strong", { text: t(seek.title) }), describeOptions(seek.options)),
    el("span", { class: "who", text: `${seek.by}${seek.target ? ` → ${seek.target}` : ""}` }),
    el("span", { class: "time", text: seek.time_text ?? seek.time }),
    el("span", { class: "color", text: seek.color === "random" ? t("random colour")
      : t("plays {color}", { color: t(cap(seek.color)).toLowerCase() }) }),
    el("span", { class: "rated", text: seek.rated ? t("rated") : t("casual") }),
    mine[seek.id]
      ? el("button", { class: "small ghost", type: "button", text: t("Withdraw"),
        onclick: () => withdraw(seek.id) })
      : forSomeoneElse(seek)
        ? el("span", { class: "hint for-other", text: t("for {name} only", { name: seek.target }) })
        : blockedPoster(seek)
        ? el("span", { class: "hint kept-apart", text: t("blocked"),
          title: t("no challenge between you and this player: one of you blocked the other") })
        : el("button", { class: "small primary", type: "button", text: t("Accept"),
          onclick: () => accept(seek.id) }),
  )) : [el("li", { class: "empty", text: t("No open challenges: post one.") })]));
  $("playing-list").replaceChildren(...(lobby.playing.length ? lobby.playing.map((g) => el("li", {},
    el("span", { class: "what" }, el("strong", { text: t(g.title) }), " " + g.names.join(" " + t("vs") + " ")),
    el("span", { class: "time", text: (g.time_text ?? g.time) + (g.rated ? " · " + t("rated") : "") }),
    el("a", { class: "button small ghost", href: `/play/${encodeURIComponent(g.id)}`, text: t("Watch") }),
  )) : [el("li", { class: "empty", text: t("No game is being played.") })]));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/lobby`);
  $("conn").textContent = t("connecting…"); $("conn").dataset.state = "wait";
  socket.addEventListener("open", () => {
    retry = 500; $("conn").textContent = t("live"); $("conn").dataset.state = "ok";
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "lobby") { render(message); onPoolCounts(message.pools); }
    else if (message.type === "pool_paired") onPoolPaired(message);
    else if (message.type === "seek_taken") {
      const map = mySeeks();
      if (map[message.seek]) {
        const token = map[message.seek];
        delete map[message.seek]; saveSeeks(map);
        open(message.game, token);
      }
    }
  });
  socket.addEventListener("close", () => {
    $("conn").textContent = t("reconnecting…"); $("conn").dataset.state = "wait";
    setTimeout(connect, retry); retry = Math.min(retry * 2, 8000);
  });
}

/** Challenges of ours taken while this page was closed: keep their seats. */
async function collectTaken() {
  const map = mySeeks();
  for (const [seekId, token] of Object.entries(map)) {
    try {
      const seek = await api(`/api/seeks/${encodeURIComponent(seekId)}`);
      if (seek.status === "open") continue;
      if (seek.game) rememberToken(seek.game, token);
    } catch { /* unknown here: forget it */ }
    delete map[seekId];
  }
  saveSeeks(map);
}

showMe(document.getElementById("me-link")).then(async (found) => {
  me = found;
  try {
    const blocks = await api("/api/me/blocks");
    keptApart = new Set((blocks.kept_apart || []).map((name) => String(name).toLowerCase()));
  } catch { /* no Accept button is hidden: the server still refuses */ }
  if (shown) render(shown);  // direct challenges to this player get their Accept button
});
catalog = await api("/api/catalog");
$("seek-game").replaceChildren(...catalog.games.map((g) => el("option", { value: g.name, text: t(g.title) })));
$("seek-game").addEventListener("change", renderForm);
$("seek-kind").addEventListener("change", syncKind);
$("seek-form").addEventListener("submit", post);
renderForm();
syncKind();
// From a player's profile (its Challenge button): the challenge form names that player.
const challenged = new URLSearchParams(location.search).get("challenge");
if (challenged) {
  $("seek-target").value = challenged.slice(0, 40);
  $("seek-form").scrollIntoView({ block: "start" });
  $("seek-game").focus();
}
await collectTaken();
connect();
initPools($("pools"));
