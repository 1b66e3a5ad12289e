// The Hint button of the game page: asks the server for the engine's suggestion (games
// against the computer and hot-seat games; the server refuses it in online games) and
// marks the points of the suggested action on the board.

import { api } from "./api.js";
import { cap } from "./common.js";
import { t } from "./i18n.js";

export class Hint {
  constructor(button, board, toast) {
    this.button = button;
    this.board = board;
    this.toast = toast;
    this.state = null;
    this.token = null;
    this.asking = false;
    button.addEventListener("click", () => this.ask());
  }

  /** Show the button when hints are allowed (never online); enable it on our turn. */
  update(state, token) {
    this.state = state;
    this.token = token;
    const allowed = state.role === "player" && state.mode !== "online" && !state.is_over;
    this.button.hidden = !allowed;
    this.button.disabled = !state.your_turn || this.asking;
    if (this.button.dataset.ply && Number(this.button.dataset.ply) !== state.ply) {
      delete this.button.dataset.action;
      delete this.button.dataset.ply;
    }
  }

  async ask() {
    const state = this.state;
    if (!state || !state.your_turn || this.asking) return;
    this.asking = true;
    this.button.disabled = true;
    this.button.textContent = t("✦ Thinking…");
    try {
      const hint = await api(`/api/games/${encodeURIComponent(state.id)}/hint`, {
        method: "POST", body: { token: this.token } });
      if (!this.state || this.state.ply !== hint.ply) return;
      for (const point of hint.points) this.board.hits.get(point)?.classList.add("hinted");
      this.button.dataset.action = hint.action;
      this.button.dataset.ply = String(hint.ply);
      const said = { label: hint.label ? cap(hint.label_text || hint.label) : t("Play"), action: hint.action,
        points: hint.points.join("-") };
      this.toast(hint.points.length ? t("Hint: {label} {action} ({points})", said)
        : t("Hint: {label} {action}", said), "ok");
    } catch (error) {
      this.toast(error.message);
    } finally {
      this.asking = false;
      this.button.textContent = t("✦ Hint");
      this.button.disabled = !(this.state && this.state.your_turn);
    }
  }
}
