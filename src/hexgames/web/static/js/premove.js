// Premoves in real-time games, as on lichess: while the opponent is to act, the player
// clicks an action of their own on the board as it stands; it is queued (marked on the
// board) and sent the moment the turn passes to them if it is legal then, else dropped
// with a short note. One queued action only (in a turn of several actions, the first).
// A click on a queued point, on an empty point once the premove is whole, Escape or the
// cancel button cancels it. The server needs nothing new: a premove is an ordinary
// action, sent with the measured lag like any other (so it costs next to no clock time).
//
// The page knows no rules, and legal actions come only to the side to act, so the
// clicks are taken as they come and matched against the legal actions (their gestures)
// when the turn arrives. How many clicks make an action is learned from the player's own
// turns (per tool, and whether the first point holds a piece), so that a click after a
// whole premove starts a new one rather than lengthening it.

import { cap, el } from "./common.js";
import { t } from "./i18n.js";
import { DEFAULT_TOOL, Picker } from "./input.js";

const SHAPES_KEY = "hexgames.premove-shapes";

/** Whether the page offers premoves in this state: a seat in a real-time online game
 * being played (correspondence games have conditional moves instead). */
export function premoveAllowed(state) {
  return Boolean(state && state.mode === "online" && state.role === "player" && !state.is_over
    && state.control && state.control.kind === "realtime");
}

function readShapes() {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(SHAPES_KEY) || "{}") || {};
  } catch { return {}; }
}

function writeShapes(shapes) {
  try { globalThis.localStorage?.setItem(SHAPES_KEY, JSON.stringify(shapes)); } catch { /* full */ }
}

const shapeKey = (tool, occupied) => `${tool || DEFAULT_TOOL}|${occupied ? 1 : 0}`;

export class Premove {
  constructor() {
    this.game = null;
    this.tool = DEFAULT_TOOL;
    this.points = [];
    this.shapes = {};   // "tool|occupied" -> the most clicks an action of that kind took
    this.toolList = [];
  }

  /** Use what was learned of `game` (a page may show another game after a rematch). */
  use(game) {
    if (this.game === game) return;
    this.game = game;
    const stored = readShapes()[game] || {};
    this.shapes = stored.shapes || {};
    this.toolList = stored.tools || [];
    this.cancel();
  }

  /** Learn from the player's own legal actions how many clicks each kind of action
   * takes; `occupied(point)` says whether a piece stands on a point. */
  learn(game, legal, occupied) {
    this.use(game);
    let changed = false;
    const tools = new Set(this.toolList);
    for (const entry of legal) {
      if (!entry.points.length) continue;
      const tool = entry.tool || DEFAULT_TOOL;
      const key = shapeKey(tool, occupied(entry.points[0]));
      const most = Math.max(...(entry.paths || [entry.points]).map((path) => path.length));
      if ((this.shapes[key] || 0) < most) { this.shapes[key] = most; changed = true; }
      if (!tools.has(tool)) { tools.add(tool); changed = true; }
    }
    if (!changed) return;
    this.toolList = [...tools].sort((a, b) => (a === DEFAULT_TOOL ? -1
      : b === DEFAULT_TOOL ? 1 : a.localeCompare(b)));
    const all = readShapes();
    all[game] = { shapes: this.shapes, tools: this.toolList };
    writeShapes(all);
  }

  /** Tools seen in the player's own turns, the default first (one: no toolbar). */
  tools() { return this.toolList.length ? this.toolList : [DEFAULT_TOOL]; }

  /** The most clicks an action starting like the queued one takes (unknown: two with
   * the default tool, one with another). */
  maxClicks(occupiedFirst) {
    const learned = this.shapes[shapeKey(this.tool, occupiedFirst)];
    if (learned) return learned;
    return this.tool === DEFAULT_TOOL ? 2 : 1;
  }

  get queued() { return this.points.length > 0; }

  selectTool(tool) { this.tool = tool; this.points = []; }

  /** Forget the queued premove; true when there was one. */
  cancel() {
    const had = this.points.length > 0;
    this.points = [];
    return had;
  }

  /**
   * A click on `point` while the opponent is to act; `occupied(point)` says whether a
   * piece stands there. Returns "queued" (the premove now ends at this point) or
   * "cancelled".
   */
  click(point, occupied) {
    if (this.points.includes(point)) { this.cancel(); return "cancelled"; }
    if (this.points.length && this.points.length >= this.maxClicks(occupied(this.points[0]))) {
      if (!occupied(point)) { this.cancel(); return "cancelled"; }
      this.points = [];
    }
    this.points.push(point);
    return "queued";
  }

  /** The premove in words: "e3 → e4", with its tool when not the default. */
  describe() {
    const tool = this.tool && this.tool !== DEFAULT_TOOL ? `${t(this.tool)} ` : "";
    return `${tool}${this.points.join(" → ")}`;
  }

  /**
   * The turn arrived with these legal actions: the queued clicks are matched as the
   * board's input would match them. Returns {kind: "send", entry} (exactly one action),
   * {kind: "choose", entries, tool, clicks} (several actions take these clicks: the page
   * offers them), {kind: "drop", message} (not legal now), or null (nothing queued).
   * The premove is used up either way.
   */
  resolve(legal) {
    if (!this.points.length) return null;
    const clicks = [...this.points];
    const tool = this.tool;
    const shown = this.describe();
    this.points = [];
    const picker = new Picker(legal);
    const complete = picker.completedBy(picker.candidates(tool, clicks), clicks);
    if (complete.length === 1) return { kind: "send", entry: complete[0] };
    if (complete.length > 1) return { kind: "choose", entries: complete, tool, clicks };
    return { kind: "drop", message: t("premove {premove} dropped: not legal now", { premove: shown }) };
  }
}

/**
 * The input bar while the opponent is to act: the tools learned (when more than one),
 * the queued premove with its cancel button, and a hint. `bar` holds the bar's parts
 * ({tools, buttons, hint, root}); `changed()` redraws after a tool or a cancel.
 */
export function renderPremoveBar(premove, bar, { changed, touch = false } = {}) {
  const tools = premove.tools();
  bar.tools.replaceChildren(...(tools.length > 1 ? tools.map((tool) => el("button", {
    class: `tool${tool === premove.tool ? " selected" : ""}`, "data-tool": tool || "default",
    "aria-pressed": tool === premove.tool ? "true" : "false", type: "button",
    text: tool === DEFAULT_TOOL ? t("Move") : t(cap(tool)),
    onclick: () => { premove.selectTool(tool); changed(); },
  })) : []));
  bar.buttons.replaceChildren(...(premove.queued ? [
    el("span", { class: "premove-chip", id: "premove", title: t("Your queued premove") },
      el("small", { text: t("Premove") }), premove.describe()),
    el("button", { class: "ghost small", id: "premove-cancel", type: "button",
      text: t("✕ Cancel"), title: t("Cancel the premove (Esc)"),
      onclick: () => { premove.cancel(); changed(); } }),
  ] : []));
  bar.root.classList.toggle("idle", !premove.queued);
  bar.hint.textContent = premove.queued
    ? t("Played the moment it is your turn, if it is legal then")
    : touch ? t("Not your turn: tap an action to queue it as a premove")
      : t("Not your turn: click an action to queue it as a premove");
}
