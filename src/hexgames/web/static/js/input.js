// Turning clicks into actions, for any game: the server sends every legal action with the
// tool and the points that enter it (its gesture); this module only matches prefixes.
// It has no knowledge of either game.

import { cap, el } from "./common.js";
import { t } from "./i18n.js";

export const DEFAULT_TOOL = "";  // the gesture tool `null`: select-and-move

const toolOf = (entry) => entry.tool || DEFAULT_TOOL;

/** What a page shows for an action: its label in the page's language (`label_text`, sent
 * where it differs from the English `label`), else the label, else the notation. */
export const shownLabel = (entry) => entry.label_text || entry.label || entry.action;

export class Picker {
  /** @param {Array<{action:string, tool:string|null, points:string[], label:string}>} legal */
  constructor(legal) {
    this.legal = legal;
    this.clickable = legal.filter((entry) => entry.points.length > 0);
    this.tool = DEFAULT_TOOL;
    this.clicks = [];
  }

  /** Tools present in the gestures, default first; one tool means no toolbar. */
  tools() {
    const seen = [...new Set(this.clickable.map(toolOf))];
    return seen.sort((a, b) => (a === DEFAULT_TOOL ? -1 : b === DEFAULT_TOOL ? 1 : a.localeCompare(b)));
  }

  /** Actions entered by a button alone (end turn, pass, swap...). */
  buttons() { return this.legal.filter((entry) => entry.points.length === 0); }

  selectTool(tool) { this.tool = tool; this.clicks = []; }

  reset() { this.clicks = []; }

  /** Click sequences of the entry that begin with `clicks` (its gesture's paths). */
  matchingPaths(entry, clicks = this.clicks) {
    const paths = entry.paths || [entry.points];
    return paths.filter((path) => path.length >= clicks.length
      && clicks.every((point, i) => path[i] === point));
  }

  candidates(tool = this.tool, clicks = this.clicks) {
    return this.clickable.filter((entry) => toolOf(entry) === tool
      && this.matchingPaths(entry, clicks).length > 0);
  }

  /** Entries whose click sequence is finished by exactly `clicks`. */
  completedBy(entries, clicks = this.clicks) {
    return entries.filter((entry) => this.matchingPaths(entry, clicks)
      .some((path) => path.length === clicks.length));
  }

  /** Points that can be clicked next (with the current tool). */
  targets() {
    const next = new Set();
    for (const entry of this.candidates()) {
      for (const path of this.matchingPaths(entry)) {
        if (path.length > this.clicks.length) next.add(path[this.clicks.length]);
      }
    }
    return next;
  }

  /**
   * What clicking each next point would do: point -> label (the gesture labels of the
   * actions that click would finish, e.g. "move", "merge / split 1-2"; "…" when it only
   * starts or continues an action).
   */
  nextLabels() {
    const found = new Map();
    const depth = this.clicks.length;
    for (const entry of this.candidates()) {
      for (const path of this.matchingPaths(entry)) {
        if (path.length <= depth) continue;
        const point = path[depth];
        if (!found.has(point)) found.set(point, []);
        if (path.length === depth + 1) found.get(point).push(shownLabel(entry));
      }
    }
    const labels = new Map();
    for (const [point, names] of found) labels.set(point, names.length ? summarize(names) : "…");
    return labels;
  }

  /** Actions the clicks so far enter completely. */
  complete() { return this.completedBy(this.candidates()); }

  /**
   * A click on `point`. Returns one of
   *   {kind: "send", entry}              exactly one action, nothing longer possible
   *   {kind: "choose", entries}          the clicks complete several actions (buttons)
   *   {kind: "more"}                     keep clicking (targets() lights up)
   *   {kind: "cleared"}                  the selected point was clicked again
   *   {kind: "error", message}           nothing legal goes that way
   */
  click(point) {
    if (this.clicks.length && this.clicks[this.clicks.length - 1] === point) {
      this.clicks = [];
      return { kind: "cleared" };
    }
    let attempt = [...this.clicks, point];
    if (!this.candidates(this.tool, attempt).length) {
      // Not a continuation: maybe the start of another action (re-selecting a piece).
      attempt = [point];
      if (!this.candidates(this.tool, attempt).length) {
        // Never switch tools by itself: a stray click must not place a block or a drop.
        const other = this.tools().filter((tool) => this.candidates(tool, attempt).length);
        const name = (tool) => (tool === DEFAULT_TOOL ? t("move") : t(tool));
        let message = this.clicks.length
          ? t("no legal action goes from {start} to {point}", { start: this.clicks.join("-"), point })
          : this.tool === DEFAULT_TOOL ? t("no legal action starts at {point}", { point })
            : t("no legal {tool} at {point}", { tool: t(this.tool), point });
        if (other.length) {
          message = t("{refusal} (select the {tools} tool)",
            { refusal: message, tools: orList(other.map(name)) });
        }
        this.clicks = [];
        return { kind: "error", message };
      }
    }
    this.clicks = attempt;
    const candidates = this.candidates();
    const complete = this.completedBy(candidates);
    const longer = candidates.filter((entry) => this.matchingPaths(entry)
      .some((path) => path.length > this.clicks.length)).length;
    if (complete.length === 1 && longer === 0) {
      this.clicks = [];
      return { kind: "send", entry: complete[0] };
    }
    if (complete.length >= 1) return { kind: "choose", entries: complete };
    return { kind: "more" };
  }
}

/**
 * A short text for several gesture labels: numbered ones are ranged ("split 1-3"), the
 * rest listed once each in order ("move / split 1-2").
 */
export function summarize(labels) {
  const order = [];
  const numbers = new Map();
  for (const label of labels) {
    const numbered = /^(.*\D)\s+(\d+)$/.exec(label);
    const head = numbered ? numbered[1] : label;
    if (!numbers.has(head)) { numbers.set(head, []); order.push(head); }
    if (numbered) numbers.get(head).push(Number(numbered[2]));
  }
  return order.map((head) => {
    const list = [...new Set(numbers.get(head))].sort((a, b) => a - b);
    if (!list.length) return head;
    if (list.length === 1) return `${head} ${list[0]}`;
    const contiguous = list.every((n, i) => i === 0 || n === list[i - 1] + 1);
    return contiguous ? `${head} ${list[0]}-${list[list.length - 1]}` : `${head} ${list.join(",")}`;
  }).join(" / ");
}

/** Alternatives in words: "a", "a or b", "a, b or c". */
export function orList(items) {
  if (items.length < 2) return items[0] || "";
  return t("{list} or {last}", { list: items.slice(0, -1).join(", "), last: items[items.length - 1] });
}

/**
 * What the turn still allows, from the legal actions' labels: ["sprout at g7", "grow",
 * "end turn"] (a kind with at most three points names them; button actions by label).
 */
export function allowedNow(legal) {
  const kinds = new Map();
  for (const entry of legal) {
    const label = shownLabel(entry).replace(/\s+\d+$/, "");
    if (!kinds.has(label)) kinds.set(label, { points: new Set(), button: false, long: false });
    const kind = kinds.get(label);
    if (entry.points.length) kind.points.add(entry.points[0]);
    else kind.button = true;
    if (entry.points.length > 1) kind.long = true;
  }
  const parts = [];
  for (const [label, kind] of kinds) {
    const text = label.toLowerCase();
    if (kind.button || !kind.points.size || kind.points.size > 3) parts.push(text);
    else {
      const points = [...kind.points].join(", ");
      parts.push(kind.long ? t("{action} from {points}", { action: text, points })
        : t("{action} at {points}", { action: text, points }));
    }
  }
  return parts;
}

// ------------------------------------------------- the controls of the learn and puzzle pages
// Both pages have the same input: tool buttons (#tools), buttons for the actions without
// a point (#buttons), a choice between actions entered by the same clicks (#choices) and
// a hint line (#hint-line) under the board. Written once here so they cannot drift apart.

const byId = (id) => document.getElementById(id);

/** Nothing to enter now (the lesson or puzzle is over, or a move is being sent): no
 * controls, a passive board. */
export function clearPickerControls(board) {
  byId("tools").replaceChildren(); byId("buttons").replaceChildren();
  byId("choices").replaceChildren();
  board.mark({ interactive: false });
  byId("hint-line").textContent = "";
}

/** The controls for the picker's state: `submit(action)` sends an action, `refresh()`
 * redraws after a tool is chosen, `touch` words the hint for a touch screen. */
export function showPickerControls({ picker, board, touch, submit, refresh }) {
  const toolList = picker.tools();
  byId("tools").replaceChildren(...(toolList.length > 1 ? toolList.map((tool) => el("button", {
    class: `tool${tool === picker.tool ? " selected" : ""}`, "data-tool": tool || "default",
    "aria-pressed": tool === picker.tool ? "true" : "false",
    text: tool === DEFAULT_TOOL ? t("Move") : t(cap(tool)),
    onclick: () => { picker.selectTool(tool); refresh(); },
  })) : []));
  byId("buttons").replaceChildren(...picker.buttons().map((entry) => el("button", {
    class: "action-button", "data-action": entry.action, text: cap(shownLabel(entry)),
    onclick: () => submit(entry.action),
  })));
  board.mark({ interactive: true, targets: picker.targets(), selected: picker.clicks,
    labels: picker.nextLabels(), tags: picker.clicks.length > 0 });
  if (picker.clicks.length) {
    byId("hint-line").textContent = touch ? t("Tap a highlighted point to continue · tap it again to cancel")
      : t("Click a highlighted point to continue · Esc cancels");
  } else byId("hint-line").textContent = touch ? t("Tap a piece or a point") : t("Click a piece or a point");
}

/** The clicks entered more than one action: a button for each (`submit(action)`). */
export function showChoices(entries, submit) {
  byId("choices").replaceChildren(el("span", { class: "choose", text: t("Which one?") }),
    ...entries.map((entry) => el("button", {
      class: "choice", "data-action": entry.action, onclick: () => submit(entry.action),
    }, el("strong", { text: cap(shownLabel(entry)) }),
    el("small", { text: entry.action }))));
}
