// An absent opponent (issue 32): the server lists the seats gone from an online game and
// when their opponent may claim (state.absent: gone_ms, claim_in_ms); the page counts
// down, then offers "Claim victory" and "Call it a draw". The server checks every claim
// again, so an early click is only answered with how long is left.

import { cap, el } from "./common.js";
import { t } from "./i18n.js";

const SLACK_MS = 250;  // the countdown ends a little after the server's limit
let timer = null;

function remaining(ms) {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return t("{seconds} s", { seconds: s });
  if (s < 7200) return t("{minutes} min", { minutes: Math.ceil(s / 60) });
  if (s < 172_800) {
    return t("{hours} h {minutes} min",
      { hours: Math.floor(s / 3600), minutes: Math.ceil((s % 3600) / 60) });
  }
  return t("{days} d {hours} h",
    { days: Math.floor(s / 86_400), hours: Math.floor((s % 86_400) / 3600) });
}

/** The notice for the #online panel (a fresh one per state), or null. */
export function absenceNotice(state, send) {
  if (timer) { clearInterval(timer); timer = null; }
  if (state.mode !== "online" || state.is_over || state.role !== "player"
      || !Array.isArray(state.absent)) return null;
  const gone = state.absent.find((entry) => !state.your_seats.includes(entry.seat));
  if (!gone) return null;
  const player = state.players.find((p) => p.seat === gone.seat);
  const name = player ? t(cap(player.color)) : t("Your opponent");
  const node = el("div", { class: "absence", "data-seat": gone.seat, role: "status" });
  if (gone.claim_in_ms === null || gone.claim_in_ms === undefined) {
    node.append(el("p", { class: "hint",
      text: t("{name} is away; if their time to move runs out, the game is yours.", { name }) }));
    return node;
  }
  const due = performance.now() + gone.claim_in_ms + SLACK_MS;
  const draw = () => {
    const left = due - performance.now();
    if (left > 0) {
      node.replaceChildren(el("p", { class: "hint",
        text: t("{name} left the game. You can claim victory in {time}.",
          { name, time: remaining(left) }) }));
      return;
    }
    if (timer) { clearInterval(timer); timer = null; }
    node.replaceChildren(el("p", { text: t("{name} left the game.", { name }) }),
      el("div", { class: "row" },
        el("button", { class: "small primary", type: "button", "data-claim": "victory",
          text: t("Claim victory"), onclick: () => send({ type: "absence_claim", claim: "victory" }) }),
        el("button", { class: "small", type: "button", "data-claim": "draw",
          text: t("Call it a draw"), onclick: () => send({ type: "absence_claim", claim: "draw" }) })));
  };
  draw();
  if (due > performance.now()) timer = setInterval(draw, 250);
  return node;
}
