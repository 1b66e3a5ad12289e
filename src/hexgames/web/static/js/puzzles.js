// The puzzle page: rated puzzles by theme, and streaks. Game-agnostic, like the learn page:
// the server sends the board and the clicks of each legal action, judges every try (the
// whole try is sent with each action) and rates a named player's first try; the page
// keeps only the actions of the try it shows. Guests play an unrated session kept here
// (counts and the best streak in localStorage).

import { api } from "./api.js";
import { Board } from "./board.js";
import { cap, el, showMe } from "./common.js";
import { number, t, tn } from "./i18n.js";
import { Picker, clearPickerControls, showChoices, showPickerControls } from "./input.js";

const $ = (id) => document.getElementById(id);
const parts = location.pathname.split("/").filter(Boolean);
const gameName = parts[1] || "";
const touch = matchMedia("(pointer: coarse)").matches;
const board = new Board($("board"), { onPoint: clickPoint });
let catalogue = null, puzzle = null, view = null, picker = null, actions = [], busy = false;
let mode = "rated", streak = null, finished = false, pending = null;

// ------------------------------------------------------------------ guest session
const SESSION = `hexgames.puzzles.${gameName}`;
function session() {
  try {
    return { solved: 0, failed: 0, seen: [], best: 0,
      ...JSON.parse(localStorage.getItem(SESSION) || "{}") };
  } catch { return { solved: 0, failed: 0, seen: [], best: 0 }; }
}
function saveSession(data) { localStorage.setItem(SESSION, JSON.stringify(data)); }

// ------------------------------------------------------------------------- start
async function start() {
  catalogue = await api(`/api/puzzles/${encodeURIComponent(gameName)}`);
  document.title = t("{game} puzzles", { game: t(catalogue.title) }) + " · hexgames";
  document.body.dataset.game = catalogue.game;
  $("rules-link").href = `/rules/${catalogue.game}`;
  $("rules-link").textContent = t("{game} rules", { game: t(catalogue.title) });
  $("learn-link").href = `/learn/${catalogue.game}`;
  showMe($("me-link"));
  $("theme").append(...catalogue.themes.filter((entry) => entry.count > 0).map((theme) => el("option",
    { value: theme.name, text: `${theme.title} (${number(theme.count)})` })));
  showRating(null);
  const chosen = parts[2] ? decodeURIComponent(parts[2]) : null;
  if (chosen) await openPuzzle(await api(`/api/puzzles/${enc(gameName)}/${enc(chosen)}`));
  else await nextPuzzle();
}

const enc = encodeURIComponent;

function showRating(change) {
  const box = $("rating-box");
  if (catalogue.rated && catalogue.me) {
    const me = catalogue.me;
    const shown = `${Math.round(me.rating)}${me.provisional ? "?" : ""}`;
    box.dataset.rating = String(Math.round(me.rating));
    box.replaceChildren(el("span", { class: "label", text: t("{game} puzzle rating", { game: t(catalogue.title) }) }),
      el("span", { class: "value-row" },
        el("strong", { class: "value", id: "rating-value", text: shown }),
        change === null ? null : el("b", { class: change >= 0 ? "up" : "down",
          id: "rating-change", text: `${change >= 0 ? "+" : "−"}${Math.abs(Math.round(change))}` })),
      el("small", { text: t("{solved} solved of {attempts} rated · best streak {best}",
        { solved: me.solved, attempts: me.attempts, best: me.best_streak }) }));
  } else {
    const mine = session();
    delete box.dataset.rating;
    box.replaceChildren(el("span", { class: "label", text: t("Unrated session") }),
      el("strong", { class: "value", id: "session-count",
        text: t("{solved} solved · {missed} missed", { solved: mine.solved, missed: mine.failed }) }),
      el("small", { text: t("Guests play unrated. Pick a name on your player page (top right) to get a puzzle rating.") }));
  }
}

// ---------------------------------------------------------------- which puzzle
async function nextPuzzle() {
  const theme = $("theme").value;
  const query = new URLSearchParams();
  if (theme) query.set("theme", theme);
  if (!catalogue.rated) query.set("skip", session().seen.slice(-50).join(","));
  await openPuzzle(await api(`/api/puzzles/${enc(gameName)}/next?${query}`));
}

async function openPuzzle(detail) {
  puzzle = detail;
  finished = false;
  pending = null;
  document.body.dataset.puzzle = puzzle.id;
  const path = `/puzzles/${puzzle.game}/${puzzle.id}`;
  if (mode === "rated" && location.pathname !== path) history.replaceState(null, "", path);
  $("puzzle-title").textContent = mode === "streak"
    ? t("{game} streak · puzzle {number}", { game: t(catalogue.title), number: streak.solved + 1 })
    : t("{game} puzzle {id}", { game: t(catalogue.title), id: puzzle.id });
  // The task comes from the server, already in the page's language.
  $("task").textContent = t("{color} to play. {task}", { color: t(cap(puzzle.color)), task: puzzle.task });
  $("puzzle-meta").replaceChildren(
    el("span", { class: "puzzle-rating-tag", text: t("Rated {rating}", { rating: puzzle.rating }) }),
    ...(puzzle.plays ? [el("span", { text: tn("{n} tried", "{n} tried", puzzle.plays) })] : []),
    ...puzzle.themes.map((theme) => el("span", { class: "theme-tag", "data-theme": theme.name,
      text: theme.title })));
  controls();
  restart();
}

/** The buttons under the board: retry and give up while the try goes on, then go on. */
function controls({ next = false, again = false } = {}) {
  $("restart").hidden = finished;
  $("give-up").hidden = finished || mode === "streak";
  $("next").hidden = !next;
  $("streak-again").hidden = !again;
}

function restart() {
  if (finished) return;
  actions = [];
  show({ ...puzzle, status: "continue", message: "" });
  $("verdict").hidden = true;
}

function show(next) {
  view = next;
  picker = new Picker(view.status === "continue" ? view.legal : []);
  board.show(view.svg, { animate: true });
  $("tried").textContent = actions.length ? t("Your try: {actions}", { actions: actions.join(" ") }) : "";
  $("tried").dataset.count = String(actions.length);
  refreshInput();
}

// ----------------------------------------------------------------------- verdicts
function verdict(kind, message, extra = []) {
  const node = $("verdict");
  node.hidden = false;
  node.className = `verdict ${kind}`;
  node.dataset.status = kind;
  const head = { solved: t("Solved!"), wrong: t("Not quite"), illegal: t("Not allowed"),
    solution: t("The solution") }[kind] || "";
  node.replaceChildren(el("strong", { text: head }), el("span", { text: ` ${message}` }), ...extra);
}

function ratingLine(result) {
  if (!result) return [];
  if (result.rated && result.changes && result.changes.player) {
    const player = result.changes.player;
    catalogue.me = { ...catalogue.me, rating: player.after, deviation: player.deviation,
      provisional: player.deviation > 110, attempts: catalogue.me.attempts + 1,
      solved: catalogue.me.solved + (result.win ? 1 : 0) };
    showRating(player.change);
    const rating = Math.round(player.after);
    return [el("span", { class: "rated-line", text: " " + t("Puzzle rating {rating}.", { rating }) })];
  }
  if (!catalogue.rated) {
    const mine = session();
    if (!mine.seen.includes(puzzle.id)) {
      mine.seen = [...mine.seen, puzzle.id].slice(-100);
      if (result.win) mine.solved += 1; else mine.failed += 1;
      saveSession(mine);
    }
    showRating(null);
    return [el("span", { class: "rated-line", text: " " + t("(unrated)") })];
  }
  return [el("span", { class: "rated-line", text: " " + t("(tried before: unrated)") })];
}

function finish(answer, result) {
  finished = true;
  const won = answer.status === "solved";
  const solution = (result && result.solution) || answer.solution || [];
  const extra = won ? [] : [el("span", { class: "solution",
    text: " " + t("The solution: {actions}.", { actions: solution.join(" ") }) })];
  if (mode === "streak") {
    streak = answer.streak;
    showStreak();
    if (won && streak.status === "playing") {
      verdict("solved", tn("{n} in a row.", "{n} in a row.", streak.solved), extra);
      pending = streak.puzzle;
      controls({ next: true });
    } else {
      verdict(won ? "solved" : "wrong", won ? t("Every puzzle of the streak: {count}!", { count: streak.solved })
        : t("{message} The streak ends at {count}.", { message: answer.message, count: streak.solved }), extra);
      controls({ again: true });
    }
    return;
  }
  verdict(won ? "solved" : "wrong", answer.message, [...extra, ...ratingLine(result)]);
  controls({ next: true });
}

// --------------------------------------------------------------------- input
function refreshInput() {
  const active = view && view.status === "continue" && !busy && !finished;
  if (!active) clearPickerControls(board);
  else showPickerControls({ picker, board, touch, submit, refresh: refreshInput });
}

function clickPoint(point) {
  if (!view || view.status !== "continue" || busy || finished) return;
  const result = picker.click(point);
  $("choices").replaceChildren();
  if (result.kind === "send") submit(result.entry.action);
  else if (result.kind === "choose") {
    showChoices(result.entries, submit);
  } else if (result.kind === "error") verdict("illegal", result.message);
  refreshInput();
}

function tryPath() {
  return mode === "streak"
    ? `/api/puzzles/${enc(gameName)}/streak/${enc(streak.id)}/try`
    : `/api/puzzles/${enc(gameName)}/${enc(puzzle.id)}/try`;
}

async function submit(action) {
  if (busy || finished) return;
  busy = true;
  $("choices").replaceChildren();
  try {
    const body = { actions: [...actions, action] };
    if (mode === "streak") body.index = streak.solved;
    const answer = await api(tryPath(), { method: "POST", body });
    actions = answer.actions;
    busy = false;
    if (answer.status === "continue") $("verdict").hidden = true;
    else if (answer.status === "illegal") verdict("illegal", answer.message);
    show(answer.status === "illegal" ? { ...answer, status: "continue" } : answer);
    if (answer.status === "solved" || answer.status === "wrong") finish(answer, answer.result);
  } catch (error) {
    busy = false;
    verdict("illegal", error.message);
    refreshInput();
  }
}

async function giveUp() {
  if (finished || mode !== "rated") return;
  const answer = await api(`/api/puzzles/${enc(gameName)}/${enc(puzzle.id)}/solution`,
    { method: "POST", body: {} });
  finished = true;
  refreshInput();
  verdict("solution", `${answer.solution.join(" ")}.`, ratingLine(answer.result));
  controls({ next: true });
}

// ---------------------------------------------------------------------- streaks
function showStreak() {
  $("streak-count").textContent = String(streak ? streak.solved : 0);
  let best = streak && streak.best !== null && streak.best !== undefined ? streak.best : null;
  if (!catalogue.rated) {
    const mine = session();
    if (streak && streak.status === "over" && streak.solved > mine.best) {
      mine.best = streak.solved;
      saveSession(mine);
    }
    best = mine.best;
  } else if (streak && streak.status === "over") best = Math.max(best || 0, streak.solved);
  $("streak-best").textContent = best === null ? "–" : String(best);
}

async function startStreak() {
  streak = await api(`/api/puzzles/${enc(gameName)}/streak`, { method: "POST", body: {} });
  showStreak();
  await openPuzzle(streak.puzzle);
}

async function setMode(next) {
  mode = next;
  document.body.dataset.mode = mode;
  $("streak-box").hidden = mode !== "streak";
  $("theme-field").hidden = mode === "streak";
  $("theme-description").hidden = mode === "streak";
  if (mode === "streak") await startStreak();
  else await nextPuzzle();
}

// ---------------------------------------------------------------------- wiring
$("restart").addEventListener("click", restart);
$("give-up").addEventListener("click", () => giveUp().catch((e) => verdict("illegal", e.message)));
$("next").addEventListener("click", () => {
  const go = mode === "streak" && pending ? openPuzzle(pending) : nextPuzzle();
  go.catch((e) => verdict("illegal", e.message));
});
$("streak-again").addEventListener("click", () => startStreak().catch((e) => verdict("illegal", e.message)));
$("theme").addEventListener("change", () => {
  const theme = catalogue.themes.find((entry) => entry.name === $("theme").value);
  $("theme-description").textContent = theme ? theme.description : "";
  nextPuzzle().catch((e) => verdict("illegal", e.message));
});
for (const input of document.querySelectorAll("input[name=mode]")) {
  input.addEventListener("change", () => setMode(input.value).catch((e) => verdict("illegal", e.message)));
}
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && picker) { picker.reset(); refreshInput(); }
});
$("notation-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("notation").value.trim();
  if (text) { $("notation").value = ""; submit(text); }
});
$("game-switch").replaceChildren(t("Puzzles of another game:") + " ");

start().then(async () => {
  const { games } = await api("/api/catalog");
  games.filter((g) => g.name !== gameName).forEach((g, i) => $("game-switch").append(
    i ? ", " : "", el("a", { href: `/puzzles/${g.name}`, text: t(g.title) })));
}).catch((error) => {
  $("puzzle-title").textContent = t("This page could not be loaded");
  $("task").textContent = error.message;
});
