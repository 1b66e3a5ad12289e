// The home page: choose a game, its variant options (generated from the game's option
// list) and an opponent; list this site's games; open an uploaded record.

import { api, rememberInvite, rememberToken, tokenFor } from "./api.js";
import { cap, el, mountSvg, showMe, swatch } from "./common.js";
import { date, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let catalog = null;

function chosenGame() {
  const name = document.querySelector("input[name=game]:checked")?.value;
  return catalog.games.find((g) => g.name === name) || catalog.games[0];
}

function mode() { return document.querySelector("input[name=mode]:checked").value; }

function renderPicker() {
  $("game-picker").replaceChildren(...catalog.games.map((game, i) => el("label", {
    class: "game-choice", "data-game": game.name,
  },
    el("input", { type: "radio", name: "game", value: game.name, checked: i === 0,
      onchange: () => { renderSeats(); renderOptions(); } }),
    el("span", { class: "preview", "aria-hidden": "true" }),
    el("span", { class: "title" }, t(game.title),
      el("a", { class: "rules-link", href: `/rules/${game.name}`, text: t("Rules") + " →",
        onclick: (e) => e.stopPropagation() }),
      el("a", { class: "rules-link learn-link", href: `/learn/${game.name}`, text: t("Learn") + " →",
        onclick: (e) => e.stopPropagation() })),
    el("span", { class: "blurb", text: game.blurb || "" }),
  )));
  mountPreviews(catalog.games);
}

// The start positions are drawn by the engine: none while the server prepares it (after
// an install), asked for again once it is ready.
function mountPreviews(games) {
  for (const game of games) {
    const slot = document.querySelector(`.game-choice[data-game="${game.name}"] .preview`);
    if (slot && game.preview_svg) mountSvg(slot, game.preview_svg);
  }
}

window.addEventListener("hexgames:engine-ready", () => {
  api("/api/catalog").then((fresh) => mountPreviews(fresh.games)).catch(() => {});
});

function renderSeats() {
  const game = chosenGame();
  const current = Number(document.querySelector("input[name=seat]:checked")?.value || 0);
  $("seat-picker").replaceChildren(...game.colors.map((color, seat) => el("label", {},
    el("input", { type: "radio", name: "seat", value: String(seat), checked: seat === current }),
    el("span", {}, swatch(color),
      seat === 0 ? t("{color} (first)", { color: t(cap(color)) }) : t(cap(color))))));
}

function renderOptions() {
  const game = chosenGame();
  if (!game.options.length) {
    $("options").replaceChildren(el("p", { class: "hint", text: t("This game has no variants.") }));
    return;
  }
  $("options").replaceChildren(...game.options.map((option) => {
    const id = `opt-${option.name}`;
    const label = option.label || option.name.replace(/_/g, " ");
    if (option.kind === "bool") {
      return el("label", { class: "option toggle" },
        el("input", { type: "checkbox", id, "data-option": option.name, checked: Boolean(option.default) }),
        el("span", { class: "name", text: cap(label) }),
        el("small", { text: option.help }));
    }
    const number = el("input", { type: "number", id, "data-option": option.name,
      min: option.minimum ?? null, max: option.maximum ?? null,
      value: option.default ?? "", placeholder: option.nullable ? t("off") : "" });
    return el("label", { class: "option" },
      el("span", { class: "name", text: cap(label) }), number,
      el("small", { text: option.nullable
        ? t("{help} (leave empty for none)", { help: option.help }) : option.help }));
  }));
}

function collectOptions() {
  const game = chosenGame();
  const options = {};
  for (const option of game.options) {
    const input = document.querySelector(`[data-option="${option.name}"]`);
    if (!input) continue;
    if (option.kind === "bool") options[option.name] = input.checked;
    else if (input.value.trim() === "") { if (option.nullable) options[option.name] = null; }
    else options[option.name] = input.value.trim();
  }
  return options;
}

function syncMode() {
  for (const node of document.querySelectorAll(".mode-detail")) {
    node.hidden = !node.dataset.mode.split(" ").includes(mode());
  }
}

/** The online game's time control (null: untimed). */
function timeControl() {
  const kind = $("tc-kind").value;
  if (kind === "realtime") {
    return { kind, base_s: Math.round(Number($("tc-minutes").value) * 60000) / 1000,
      increment_s: Number($("tc-increment").value) };
  }
  if (kind === "correspondence") return { kind, days: Number($("tc-days").value) };
  return null;
}

function syncTimeControl() {
  for (const node of document.querySelectorAll(".new-game .tc-detail")) {
    node.hidden = node.dataset.kind !== $("tc-kind").value;
  }
}

async function start(event) {
  event.preventDefault();
  $("form-error").textContent = "";
  const button = $("start");
  button.disabled = true;
  const seat = Number(document.querySelector("input[name=seat]:checked")?.value || 0);
  try {
    const created = await api("/api/games", { method: "POST", body: {
      game: chosenGame().name, mode: mode(), options: collectOptions(), seat,
      level: Number($("level").value), ...(mode() === "online" ? { control: timeControl() } : {}),
    } });
    rememberToken(created.id, created.token);
    if (mode() === "online") {
      rememberInvite(created.id, {
        opponent: created.links.seats[1 - seat],
        mine: created.links.seats[seat],
        spectate: created.links.spectate,
      });
    }
    location.href = `/play/${created.id}`;
  } catch (error) {
    $("form-error").textContent = error.message;
    button.disabled = false;
  }
}

function when(stamp) {
  const moment = new Date(stamp);
  const minutes = Math.round((Date.now() - moment.getTime()) / 60000);
  if (minutes < 1) return t("just now");
  if (minutes < 60) return t("{minutes} min ago", { minutes });
  if (minutes < 60 * 24) return t("{hours} h ago", { hours: Math.round(minutes / 60) });
  return date(moment, { year: "numeric", month: "numeric", day: "numeric" });
}

function describeOpponents(game) {
  if (game.mode === "hotseat") return t("same screen");
  const names = game.players.map((p, seat) => (game.names && game.names[seat])
    || (p.kind === "ai" ? t("Computer (level {level})", { level: p.level }) : null));
  if (names.every(Boolean)) return names.join(" " + t("vs") + " ");  // both seats known by name
  if (game.mode === "online") return t("online");
  const ai = game.players.find((p) => p.kind === "ai");
  return t("vs computer · level {level}", { level: ai ? ai.level : "?" });
}

/** How a finished game ended: a winner only where there is one (an aborted game has
 * none, a draw says so), the reason in the page's language. */
function outcome(game) {
  const reason = game.reason_text ?? game.reason;
  if (!game.winner) return reason || t("finished");
  if (game.winner === "draw") return reason ? `${t("draw")} · ${reason}` : t("draw");
  const winner = t(cap(game.winner));
  return reason ? t("{winner} won · {reason}", { winner, reason }) : t("{winner} won", { winner });
}

async function renderGames() {
  const list = $("game-list");
  try {
    const { games } = await api("/api/games?limit=30");
    if (!games.length) {
      list.replaceChildren(el("li", { class: "empty", text: t("No games yet — start one above.") }));
      return;
    }
    list.replaceChildren(...games.map((game) => {
      const mine = Boolean(tokenFor(game.id));
      const over = game.status === "over";
      return el("li", { class: `game-row${over ? " over" : ""}`, "data-id": game.id },
        el("span", { class: `badge badge-${game.game}`, text: t(game.title) }),
        el("span", { class: "what" },
          el("strong", { text: describeOpponents(game) }),
          el("small", { text: over ? outcome(game) : t("in progress") })),
        el("span", { class: "when", text: when(game.updated_at) }),
        el("span", { class: "go" },
          over ? null : el("a", { class: "button small", href: `/play/${game.id}`, text: mine ? t("Resume") : t("Watch") }),
          el("a", { class: "button small ghost", href: `/replay/${game.id}`, text: t("Replay") })));
    }));
  } catch (error) {
    list.replaceChildren(el("li", { class: "empty", text: t("Could not load games: {error}", { error: error.message }) }));
  }
}

async function upload(event) {
  const file = event.target.files[0];
  if (!file) return;
  try {
    const text = await file.text();
    const created = await api("/api/records", { method: "POST", body: { text } });
    rememberToken(created.id, created.token);
    location.href = `/play/${created.id}`;
  } catch (error) {
    $("form-error").textContent = t("Could not open {file}: {error}", { file: file.name, error: error.message });
  } finally {
    event.target.value = "";
  }
}

async function init() {
  catalog = await api("/api/catalog");
  showMe($("me-link"));  // the menu's last entry (templates/_menu.html)
  renderPicker();
  renderSeats();
  renderOptions();
  syncMode();
  for (const input of document.querySelectorAll("input[name=mode]")) input.addEventListener("change", syncMode);
  const level = $("level");
  // Level names come from the AI's own descriptions ("beginner: greedy one-ply ...").
  const describe = (n) => {
    const found = catalog.levels.find((l) => l.level === n);
    return found ? found.description_text ?? found.description : "";
  };
  const name = () => {
    const text = describe(Number(level.value));
    $("level-name").textContent = `${level.value} · ${cap(text.split(":")[0])}`;
    level.title = text;
  };
  level.addEventListener("input", name);
  name();
  $("new-game").addEventListener("submit", start);
  $("tc-kind").addEventListener("change", syncTimeControl);
  $("upload").addEventListener("change", upload);
  renderGames();
}

init().catch((error) => {
  $("form-error").textContent = t("The site could not load: {error}", { error: error.message });
});
