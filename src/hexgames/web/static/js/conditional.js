// Conditional moves in correspondence games (lichess's "conditional premoves"): while the
// opponent is to act, the player enters a line on a board of its own (the opponent's
// expected turn, their reply, and so on, with the board's usual clicks) and stores it;
// when the opponent plays exactly the expected turn, the server plays the reply at once.
// The page knows no rules: the server checks the line as it grows
// (POST /api/games/{id}/conditional/preview) and sends the legal actions with their
// clicks for whoever acts next in the line. Lines are shown to their owner only.

import { api } from "./api.js";
import { Board } from "./board.js";
import { cap, el, swatch } from "./common.js";
import { t } from "./i18n.js";
import { DEFAULT_TOOL, Picker, shownLabel } from "./input.js";

/** A seat in an online game whose time control takes lines (not real time). */
export function conditionalAllowed(state) {
  return Boolean(state && state.mode === "online" && state.role === "player"
    && !state.is_over && !(state.control && state.control.kind === "realtime"));
}

/** A line's turns as text chips: "Blue e3e4 · You e7e6 e8e7". */
function turnList(turns) {
  return el("ol", { class: "cond-turns" }, ...turns.map((turn) => el("li", {
    class: turn.yours ? "yours" : "theirs" },
  swatch(turn.color), el("span", { class: "who", text: turn.yours ? t("You") : t(cap(turn.color)) }),
  el("span", { class: "acts", text: turn.actions.join(" ") }))));
}

export class ConditionalMoves {
  /** `panel`: the side panel's container; `token()`, `flipped()`: the page's; `toast`. */
  constructor({ panel, gameId, token, flipped, toast }) {
    this.panel = panel;
    this.gameId = gameId;
    this.token = token;
    this.flipped = flipped;
    this.toast = toast;
    this.state = null;
    this.data = null;       // the last GET .../conditional answer
    this.loadedAt = null;   // the ply it was read at
    this.line = [];         // the line being entered (notations)
    this.preview = null;    // its last preview
    this.picker = null;
    this.dialog = null;
    this.asked = 0;         // previews asked for (a late answer is ignored)
  }

  get url() { return `/api/games/${encodeURIComponent(this.gameId)}/conditional`; }

  /** A new state of the game: show the panel where lines are possible; read the lines
   * again when the game moved on (a line may have been played or dropped). */
  update(state) {
    this.state = state;
    const allowed = conditionalAllowed(state);
    this.panel.hidden = !allowed;
    if (!allowed) {
      if (this.dialog && this.dialog.open) this.dialog.close();
      return;
    }
    if (this.loadedAt !== state.ply) this.reload();
    else this.render();
    if (this.dialog && this.dialog.open && this.preview && this.preview.ply !== state.ply) {
      this.dialog.close();
      this.toast(t("the game moved on: enter the line again from the new position"), "info");
    }
  }

  async reload() {
    const ply = this.state.ply;
    this.loadedAt = ply;
    try {
      const query = this.token() ? `?token=${encodeURIComponent(this.token())}` : "";
      this.data = await api(`${this.url}${query}`);
    } catch (error) {
      this.loadedAt = null;
      this.data = { lines: [], can_add: false, reason: error.message };
    }
    this.render();
  }

  render() {
    const data = this.data;
    if (!data) return;
    const lines = data.lines.map((line) => el("li", { class: "cond-line", "data-line": line.id },
      turnList(line.turns),
      el("button", { class: "ghost small", type: "button", text: t("Remove"),
        "aria-label": t("Remove this line"), onclick: () => this.remove(line.id) })));
    this.panel.replaceChildren(
      el("h3", { text: t("Conditional moves") }),
      lines.length ? el("ul", { class: "cond-lines", id: "conditional-lines" }, ...lines)
        : el("p", { class: "hint",
          text: t("If your opponent plays the turn you expect, your planned reply is played at once.") }),
      data.can_add
        ? el("button", { class: "small", type: "button", id: "conditional-add",
          text: t("+ Plan a line"), onclick: () => this.open() })
        : el("p", { class: "hint", id: "conditional-why", text: cap(data.reason_text || data.reason || "") }),
    );
  }

  async remove(lineId) {
    try {
      const query = `?token=${encodeURIComponent(this.token() || "")}`;
      this.data = await api(`${this.url}/${encodeURIComponent(lineId)}${query}`,
        { method: "DELETE" });
      this.render();
    } catch (error) { this.toast(error.message); }
  }

  // ------------------------------------------------------------- the line editor
  build() {
    const part = (tag, attrs) => el(tag, attrs);
    this.parts = {
      status: part("p", { class: "cond-status", id: "cond-status" }),
      note: part("p", { class: "cond-note", id: "cond-note", role: "status" }),
      board: part("div", { class: "board cond-board", id: "cond-board" }),
      tools: part("div", { class: "tools", role: "toolbar" }),
      choices: part("div", { class: "choices" }),
      buttons: part("div", { class: "buttons" }),
      turns: part("div", { class: "cond-line-now", id: "cond-line" }),
      save: el("button", { class: "primary small", type: "button", id: "cond-save",
        text: t("Save line"), onclick: () => this.save() }),
    };
    const p = this.parts;
    this.dialog = el("dialog", { class: "dialog cond-dialog", id: "conditional-editor",
      "aria-labelledby": "cond-title" },
    el("div", { class: "legend-head" }, el("h2", { id: "cond-title", text: t("Plan a line") }),
      el("button", { class: "ghost small", type: "button", "aria-label": t("Close"), text: "✕",
        onclick: () => this.dialog.close() })),
    p.status, p.note, p.board,
    el("div", { class: "input-bar" }, p.tools, p.choices, p.buttons),
    p.turns,
    el("div", { class: "actions" },
      el("button", { class: "ghost small", type: "button", id: "cond-undo", text: t("↶ Undo"),
        onclick: () => this.setLine(this.line.slice(0, -1)) }),
      el("button", { class: "ghost small", type: "button", text: t("Clear"),
        onclick: () => this.setLine([]) }),
      el("button", { class: "ghost small", type: "button", text: t("Cancel"),
        onclick: () => this.dialog.close() }),
      p.save));
    document.body.append(this.dialog);
    this.board = new Board(p.board, { onPoint: (point) => this.click(point) });
  }

  open() {
    if (!this.dialog) this.build();
    this.preview = null;
    this.picker = null;  // no clicks on the last line's board while the new one loads
    this.board.show("");
    this.parts.note.textContent = "";
    this.dialog.showModal();
    this.setLine([]);
  }

  /** A message for the player: in the editor while it is open (it covers the page). */
  note(message, kind = "error") {
    if (this.dialog && this.dialog.open) {
      this.parts.note.textContent = message;
      this.parts.note.className = `cond-note ${kind}`;
    } else this.toast(message, kind);
  }

  async setLine(line) {
    const body = { token: this.token(), line, flip: Boolean(this.flipped()) };
    const picker = this.picker;
    this.picker = null;  // clicks wait for the position they are meant for
    const asked = ++this.asked;  // only the latest request counts
    try {
      const preview = await api(`${this.url}/preview`, { method: "POST", body });
      if (asked !== this.asked) return;
      this.line = preview.line;
      this.preview = preview;
      this.picker = new Picker(preview.legal);
      this.board.show(preview.svg);
      this.parts.note.textContent = "";
      this.showInput();
    } catch (error) {
      if (asked !== this.asked) return;
      this.picker = picker;
      if (!this.preview) { this.dialog.close(); this.toast(error.message); } else this.note(error.message);
    }
  }

  showInput() {
    const preview = this.preview, p = this.parts, picker = this.picker;
    if (!preview || !picker) return;  // a line is loading: shown when it comes
    p.status.textContent = preview.over ? t("The game would be over here: save the line.")
      : this.nextStep(preview);
    p.turns.replaceChildren(preview.turns.length ? turnList(preview.turns)
      : el("p", { class: "hint", text: t("No action yet.") }));
    this.parts.save.disabled = !preview.complete;
    const tools = picker.tools();
    p.tools.replaceChildren(...(tools.length > 1 ? tools.map((tool) => el("button", {
      class: `tool${tool === picker.tool ? " selected" : ""}`, "data-tool": tool || "default",
      type: "button", text: tool === DEFAULT_TOOL ? t("Move") : t(cap(tool)),
      onclick: () => { picker.selectTool(tool); p.choices.replaceChildren(); this.showInput(); },
    })) : []));
    p.buttons.replaceChildren(...picker.buttons().map((entry) => el("button", {
      class: "action-button", "data-action": entry.action, type: "button",
      text: cap(shownLabel(entry)), onclick: () => this.add(entry.action),
    })));
    const targets = picker.targets();
    const labels = picker.nextLabels();
    this.board.mark({ interactive: true, targets, selected: picker.clicks, labels,
      tags: picker.clicks.length > 0 });
  }

  /** What to enter next: the player's reply, or the turn expected of the opponent. */
  nextStep(preview) {
    if (preview.yours) {  // (a line starts with the opponent's turn: never empty here)
      return preview.complete ? t("Complete: save it, or go on with your reply.")
        : t("Now your reply.");
    }
    const color = t(cap(preview.to_move));
    return preview.complete
      ? t("Complete: save it, or go on with the turn you expect from {color}.", { color })
      : this.line.length ? t("Now the turn you expect from {color}.", { color })
        : t("Enter the turn you expect from {color}, then your reply.", { color });
  }

  click(point) {
    if (!this.picker || !this.preview) return;
    const result = this.picker.click(point);
    this.parts.choices.replaceChildren();
    if (result.kind === "send") { this.add(result.entry.action); return; }
    if (result.kind === "choose") {
      this.parts.choices.replaceChildren(el("span", { class: "choose", text: t("Which one?") }),
        ...result.entries.map((entry) => el("button", {
          class: "choice", "data-action": entry.action, type: "button",
          text: cap(shownLabel(entry)), onclick: () => this.add(entry.action) })));
    } else if (result.kind === "error") this.note(result.message);
    this.showInput();
  }

  add(action) {
    if (!this.picker) return;  // a line is loading
    this.parts.choices.replaceChildren();
    this.setLine([...this.line, action]);
  }

  async save() {
    try {
      const stored = await api(this.url, { method: "POST",
        body: { token: this.token(), line: this.line } });
      this.dialog.close();
      this.data = { ...this.data, lines: stored.lines };
      this.render();
      this.toast(t("line stored: it plays itself if your opponent follows it"), "ok");
    } catch (error) { this.note(error.message); }
  }
}
