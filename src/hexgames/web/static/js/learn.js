// The learn page: a game's lessons and puzzles. Game-agnostic: the server sends the board,
// the clicks that enter each legal action (as on the play page), and judges every try with
// the engine (solved / wrong with the lesson's explanation / illegal with the engine's
// reason). The page only keeps the list of actions of the current try.

import { api } from "./api.js";
import { Board } from "./board.js";
import { cap, el, swatch } from "./common.js";
import { t } from "./i18n.js";
import { Picker, clearPickerControls, showChoices, showPickerControls } from "./input.js";

const $ = (id) => document.getElementById(id);
const gameName = location.pathname.split("/").filter(Boolean)[1] || "";
let catalogue = null, lesson = null, view = null, picker = null, actions = [], busy = false;
const touch = matchMedia("(pointer: coarse)").matches;
const LEARN_PUZZLES = 8;  // puzzles listed on the learn page

const board = new Board($("board"), { onPoint: clickPoint });

async function start() {
  catalogue = await api(`/api/learn/${encodeURIComponent(gameName)}`);
  document.title = t("Learn {game}", { game: catalogue.title }) + " · hexgames";
  document.body.dataset.game = catalogue.game;
  $("rules-link").href = `/rules/${catalogue.game}`;
  $("rules-link").textContent = t("{game} rules", { game: t(catalogue.title) });
  const item = (entry) => el("li", {}, el("a", { href: `#${entry.id}`, "data-lesson": entry.id,
    text: entry.title }));
  $("lessons").replaceChildren(...catalogue.lessons.map(item));
  // The first few puzzles here; all of them, rated and by theme, on the puzzle page.
  $("puzzles").replaceChildren(...catalogue.puzzles.slice(0, LEARN_PUZZLES).map(item));
  if (catalogue.puzzles.length > LEARN_PUZZLES) {
    $("puzzles").after(el("p", { class: "more-puzzles" }, el("a", {
      href: `/puzzles/${catalogue.game}`,
      text: t("All {count} puzzles, rated, by theme →", { count: catalogue.puzzles.length }) })));
  }
  $("puzzles-head").hidden = catalogue.puzzles.length === 0;
  await open(location.hash.slice(1) || (catalogue.lessons[0] || catalogue.puzzles[0]).id);
}

function all() { return [...catalogue.lessons, ...catalogue.puzzles]; }

async function open(id) {
  if (!all().some((entry) => entry.id === id)) id = all()[0].id;
  lesson = await api(`/api/learn/${encodeURIComponent(gameName)}/${encodeURIComponent(id)}`);
  if (location.hash.slice(1) !== id) history.replaceState(null, "", `#${id}`);
  for (const link of document.querySelectorAll("[data-lesson]")) {
    link.toggleAttribute("aria-current", link.dataset.lesson === id);
  }
  $("lesson-title").textContent = `${catalogue.title}: ${lesson.title}`;
  $("task").textContent = lesson.task;
  $("rule").textContent = lesson.rule;
  $("hint").textContent = lesson.hint;
  $("hint").hidden = true;
  restart();
}

function restart() {
  actions = [];
  show({ ...lesson, status: "continue", message: "" });
  $("verdict").hidden = true;
}

function show(next) {
  view = next;
  picker = new Picker(view.status === "continue" ? view.legal : []);
  board.show(view.svg, { animate: true });
  $("tried").textContent = actions.length ? t("Your try: {actions}", { actions: actions.join(" ") }) : "";
  $("tried").dataset.count = String(actions.length);
  const score = view.score;
  $("learn-score").hidden = !score;
  if (score) {
    $("learn-score").replaceChildren(el("strong", { text: t("Score now:") + " " }),
      ...Object.entries(score).map(([side, value], i) => el("span", { "data-side": side },
        i ? " · " : "", swatch(side), " " + t(cap(side)) + " " + value)));
  }
  const solved = view.status === "solved";
  const list = all();
  const at = list.findIndex((entry) => entry.id === lesson.id);
  $("next").hidden = !solved || at === list.length - 1;
  if (solved) {
    const link = document.querySelector(`[data-lesson="${lesson.id}"]`);
    if (link) link.classList.add("done");
  }
  refreshInput();
}

function verdict(kind, message) {
  const node = $("verdict");
  node.hidden = false;
  node.className = `verdict ${kind}`;
  node.dataset.status = kind;
  const head = { solved: t("Solved!"), wrong: t("Not quite"), illegal: t("Not allowed") }[kind] || "";
  node.replaceChildren(el("strong", { text: head }), el("span", { text: ` ${message}` }));
  if (kind === "wrong") {
    node.append(el("button", { class: "small", type: "button", text: t("Try again"),
      onclick: restart }));
  }
}

function refreshInput() {
  const active = view && view.status === "continue" && !busy;
  if (!active) clearPickerControls(board);
  else showPickerControls({ picker, board, touch, submit, refresh: refreshInput });
}

function clickPoint(point) {
  if (!view || view.status !== "continue" || busy) return;
  const before = [...picker.clicks];
  const result = picker.click(point);
  $("choices").replaceChildren();
  if (result.kind === "send") submit(result.entry.action);
  else if (result.kind === "choose") {
    showChoices(result.entries, submit);
  } else if (result.kind === "error") {
    // Clicks that match no legal action: the server reads them as the action they would
    // enter and the engine says why it is refused (the picker's words otherwise).
    explainClicks(before.length ? [...before, point] : [point], result.message);
  }
  refreshInput();
}

async function explainClicks(points, fallback) {
  try {
    const answer = await api(
      `/api/learn/${encodeURIComponent(gameName)}/${encodeURIComponent(lesson.id)}/try`,
      { method: "POST", body: { actions, clicks: { tool: picker.tool || null, points } } });
    if (answer.status === "illegal" && answer.parsed) verdict("illegal", answer.message);
    else if (answer.status === "illegal" || answer.status === "continue") {
      verdict("illegal", fallback);
    } else {  // the engine read the clicks as a legal action after all: show its verdict
      actions = answer.actions;
      verdict(answer.status, answer.message);
      show(answer);
    }
  } catch (error) {
    verdict("illegal", fallback);
  }
}

async function submit(action) {
  if (busy) return;
  busy = true;
  $("choices").replaceChildren();
  try {
    const tried = [...actions, action];
    const answer = await api(
      `/api/learn/${encodeURIComponent(gameName)}/${encodeURIComponent(lesson.id)}/try`,
      { method: "POST", body: { actions: tried } });
    actions = answer.actions;
    if (answer.status === "continue") $("verdict").hidden = true;
    else verdict(answer.status, answer.message);
    busy = false;
    show(answer.status === "illegal" ? { ...answer, status: "continue" } : answer);
  } catch (error) {
    busy = false;
    verdict("illegal", error.message);
    refreshInput();
  }
}

$("restart").addEventListener("click", restart);
$("show-hint").addEventListener("click", () => { $("hint").hidden = !$("hint").hidden; });
$("next").addEventListener("click", () => {
  const list = all();
  const at = list.findIndex((entry) => entry.id === lesson.id);
  if (at + 1 < list.length) open(list[at + 1].id);
});
window.addEventListener("hashchange", () => {
  if (lesson && location.hash.slice(1) !== lesson.id) open(location.hash.slice(1));
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && picker) { picker.reset(); refreshInput(); }
});
// Typed notation, like the play page's box (the engine explains what it refuses).
$("notation-form")?.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("notation").value.trim();
  if (text) { $("notation").value = ""; submit(text); }
});

start().catch((error) => {
  $("lesson-title").textContent = t("This page could not be loaded");
  $("task").textContent = error.message;
});
