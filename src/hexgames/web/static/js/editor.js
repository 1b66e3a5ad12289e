// The board editor: set up any position by clicking points with a palette, paste or copy
// the game's board text, and play it (against the computer or hot-seat) or analyse it.
// The palette, the piece attributes and the position settings come from the server (the
// game's own editor description); the board is checked by the engine after every change.

import { api, rememberToken } from "./api.js";
import { Board } from "./board.js";
import { cap, el } from "./common.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

let catalog = null;
let game = null;          // catalog entry
let spec = null;          // {pieces, settings, note}
let options = {};
let cells = {};
let settings = {};
let last = null;          // the last answer of the server
let tool = null;          // a piece kind id, or "erase"
const attributes = {};    // kind id -> {name: value}
let flip = false;
let requests = 0;

const board = new Board($("board"), { onPoint: clickPoint });

function verdict(text, ok) {
  $("verdict").textContent = text;
  $("verdict").className = `verdict ${ok ? "ok" : "bad"}`;
  $("verdict").dataset.valid = String(ok);
  // A refused placement must not seem to do nothing: bring its message into view.
  const box = $("verdict").getBoundingClientRect();
  if (!ok && (box.top < 0 || box.bottom > innerHeight)) $("verdict").scrollIntoView({ block: "nearest" });
}

// --------------------------------------------------------------- the server
function receive(answer) {
  last = answer;
  cells = answer.cells;
  settings = answer.settings;
  options = answer.options;
  if (answer.text !== null && answer.text !== undefined) $("text").value = answer.text;
  if (answer.valid) {
    board.show(answer.svg);
    board.mark({ interactive: true });
    let state;
    if (!answer.is_over) state = t("{color} to act", { color: t(cap(answer.to_move)) });
    else state = answer.result ? cap(answer.result_text ?? answer.result) : t("The game is over");
    verdict("✓ " + t("A legal position · {state}", { state }), true);
  } else {
    verdict(`✗ ${answer.message ?? answer.error}`, false);
  }
  renderSettings();
  for (const id of ["play-ai", "play-hotseat", "analyse"]) {
    $(id).disabled = !answer.valid || Boolean(answer.is_over);
  }
}

async function send() {
  const mine = ++requests;
  try {
    const answer = await api("/api/editor/board", { method: "POST", body: {
      game: game.name, options, cells, settings, flip } });
    if (mine === requests) receive(answer);
  } catch (error) { verdict(`✗ ${error.message}`, false); }
}

async function loadSpec(name, text = null) {
  game = catalog.games.find((entry) => entry.name === name) || catalog.games[0];
  document.title = t("Board editor · {game}", { game: game.title }) + " · hexgames";
  $("rules-link").href = `/rules/${game.name}`;
  for (const input of document.querySelectorAll("#games input")) input.checked = input.value === game.name;
  const started = await api("/api/editor/spec", { method: "POST", body: { game: game.name, options } });
  spec = started.spec;
  $("note").textContent = spec.note;
  if (!tool || (tool !== "erase" && !spec.pieces.some((piece) => piece.id === tool))) tool = spec.pieces[0].id;
  renderPalette();
  renderOptions();
  $("seat").replaceChildren(...game.colors.map((color, seat) => el("option", { value: seat, text: t(cap(color)) })));
  if (text) await readText(text);
  else receive(started);
}

async function readText(text) {
  try {
    const answer = await api("/api/editor/read", { method: "POST", body: { text, game: game.name, flip } });
    options = answer.options;
    spec = (await api("/api/editor/spec", { method: "POST", body: { game: game.name, options } })).spec;
    renderPalette();
    renderOptions();
    receive(answer);
  } catch (error) { verdict(`✗ ${error.message}`, false); }
}

// ---------------------------------------------------------------- the forms
function renderPalette() {
  const button = (id, label, color) => el("button", {
    type: "button", "data-kind": id, "aria-pressed": String(tool === id),
    onclick: () => { tool = id; renderPalette(); },
  }, color ? el("span", { class: `swatch dot swatch-${color}` }) : null, label);
  $("palette").replaceChildren(...spec.pieces.map((piece) => button(piece.id, piece.label, piece.color)),
    button("erase", t("Erase"), null));
  renderAttributes();
}

function field(item, value, onchange) {
  const id = `f-${item.name}`;
  let input;
  if (item.kind === "bool") {
    input = el("input", { type: "checkbox", id, checked: Boolean(value) });
    input.addEventListener("change", () => onchange(input.checked));
  } else if (item.kind === "int") {
    input = el("input", { type: "number", id, min: item.minimum ?? null, max: item.maximum ?? null, value });
    input.addEventListener("change", () => onchange(Number(input.value)));
  } else if (item.kind === "choice") {
    input = el("select", { id }, ...item.choices.map((choice) => el("option", {
      value: choice, text: t(cap(choice)), selected: choice === value })));
    input.addEventListener("change", () => onchange(input.value));
  } else {
    input = el("input", { type: "text", id, value: value ?? "" });
    input.addEventListener("change", () => onchange(input.value.trim()));
  }
  input.dataset.field = item.name;
  return el("label", { for: id, title: item.help || null }, el("span", { text: item.label }), input);
}

function renderAttributes() {
  const piece = spec.pieces.find((entry) => entry.id === tool);
  if (!piece || !piece.attributes.length) { $("attributes").replaceChildren(); return; }
  attributes[piece.id] = attributes[piece.id] || Object.fromEntries(
    piece.attributes.map((item) => [item.name, item.default]));
  const chosen = attributes[piece.id];
  $("attributes").replaceChildren(el("h3", { text: t("{piece}: placed as", { piece: piece.label }) }),
    ...piece.attributes.map((item) => field(item, chosen[item.name], (value) => { chosen[item.name] = value; })));
}

function renderSettings() {
  $("settings").replaceChildren(...spec.settings.map((item) => field(item, settings[item.name],
    (value) => { settings = { ...settings, [item.name]: value }; send(); })));
}

function renderOptions() {
  $("options").replaceChildren(...game.options.map((option) => {
    const item = { name: option.name, label: cap(option.label || option.name.replace(/_/g, " ")), kind: option.kind,
      minimum: option.minimum, maximum: option.maximum, help: option.help };
    return field(item, options[option.name] ?? option.default ?? "", async (value) => {
      options = { ...options, [option.name]: value === "" ? null : value };
      try { await loadSpec(game.name); } catch (error) { verdict(`✗ ${error.message}`, false); }
    });
  }));
}

// -------------------------------------------------------------- the board
const canonical = (value) => JSON.stringify(Object.keys(value).sort().map((key) => [key, value[key]]));

function clickPoint(point) {
  if (!spec) return;
  const next = { ...cells };
  if (tool === "erase") delete next[point];
  else {
    const piece = { piece: tool, ...(attributes[tool] || {}) };
    const same = next[point] && canonical(next[point]) === canonical(piece);
    if (same) delete next[point];  // clicking the same piece again removes it
    else next[point] = piece;
  }
  cells = next;
  $("board").dataset.last = point;
  send();
}

// ------------------------------------------------------------------ actions
async function start(mode) {
  if (!last || !last.valid) return;
  try {
    const created = await api("/api/games", { method: "POST", body: {
      game: game.name, mode, options, start: last.text,
      seat: Number($("seat").value), level: Number($("level").value) } });
    rememberToken(created.id, created.token);
    location.href = `/play/${created.id}`;
  } catch (error) { verdict(`✗ ${error.message}`, false); }
}

$("play-ai").addEventListener("click", () => start("ai"));
$("play-hotseat").addEventListener("click", () => start("hotseat"));
$("analyse").addEventListener("click", () => {
  if (!last || !last.valid) return;
  const query = new URLSearchParams({ game: game.name, options: JSON.stringify(options), start: last.text });
  location.href = `/analysis?${query}`;
});
$("load").addEventListener("click", () => readText($("text").value));
$("copy").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText($("text").value); verdict("✓ " + t("Board text copied"), true); }
  catch { $("text").select(); }
});
$("clear").addEventListener("click", () => { cells = {}; send(); });
$("reset").addEventListener("click", () => loadSpec(game.name));
$("flip").addEventListener("click", () => {
  flip = !flip;
  $("flip").setAttribute("aria-pressed", String(flip));
  send();
});

async function init() {
  catalog = await api("/api/catalog");
  $("games").replaceChildren(...catalog.games.map((entry) => el("label", {},
    el("input", { type: "radio", name: "game", value: entry.name, onchange: () => {
      options = {};
      loadSpec(entry.name);
    } }),
    el("span", { text: t(entry.title) }))));
  try {
    options = JSON.parse(params.get("options") || "{}");
  } catch { options = {}; }
  try {
    await loadSpec(params.get("game") || catalog.games[0].name, params.get("text"));
  } catch (error) { verdict(`✗ ${error.message}`, false); }
}

init();
