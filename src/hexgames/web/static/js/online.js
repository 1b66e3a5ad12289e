// Online play around the board (issue 11): ticking clocks, lag measurement, takeback,
// abort and rematch buttons, "Your turn" in the tab title and the optional move sound.
// The server keeps the clocks; the page only counts down from what it last said.

import { rememberToken } from "./api.js";
import { absenceNotice } from "./absence.js";
import { cap, el } from "./common.js";
import { t } from "./i18n.js";

const SOUND_KEY = "hexgames.sound";
let last = null;          // the latest state
let receivedAt = 0;       // performance.now() when it arrived
let ticker = null;
let pingSent = 0;
let rtt = 0;              // the last measured round trip (ms), sent with each action
let audio = null;

/** ms as the clock shows it: m:ss, tenths under 10 s, days/hours for correspondence. */
export function formatClock(ms) {
  if (ms >= 86_400_000) {
    const days = Math.floor(ms / 86_400_000), hours = Math.floor((ms % 86_400_000) / 3_600_000);
    return t("{days}d {hours}h", { days, hours });
  }
  if (ms >= 3_600_000) {
    const h = Math.floor(ms / 3_600_000), m = Math.floor((ms % 3_600_000) / 60_000);
    return t("{hours}h {minutes}m", { hours: h, minutes: String(m).padStart(2, "0") });
  }
  const total = Math.max(0, ms) / 1000;
  const m = Math.floor(total / 60), s = total - m * 60;
  if (total < 10) return `0:0${s.toFixed(1)}`;
  return `${m}:${String(Math.floor(s)).padStart(2, "0")}`;
}

function leftNow(seat) {
  const clock = last && last.clock;
  if (!clock) return null;
  const spent = clock.running === seat ? performance.now() - receivedAt : 0;
  return Math.max(0, clock.left_ms[seat] - spent);
}

function tick() {
  if (!last || !last.clock) return;
  for (const seat of [0, 1]) {
    const node = document.querySelector(`.player[data-seat="${seat}"] .clock`);
    if (!node) continue;
    const ms = leftNow(seat);
    node.textContent = formatClock(ms);
    node.classList.toggle("running", last.clock.running === seat);
    node.classList.toggle("low", ms < 10_000 && last.clock.control.kind === "realtime");
  }
}

/** Measure the round trip now and then (the server credits it to our clock). */
export function startPings(send) {
  setInterval(() => { pingSent = performance.now(); send({ type: "ping" }, { quiet: true }); },
    5000);
}

export function onPong() { if (pingSent) rtt = Math.round(performance.now() - pingSent); }

export function lag() { return rtt; }

function soundOn() { return localStorage.getItem(SOUND_KEY) === "1"; }

function playSound() {
  if (!soundOn()) return;
  audio = audio || new Audio("/static/move.wav");
  audio.currentTime = 0;
  audio.play().catch(() => {});
}

/** Everything online around a new state; ``send`` sends a socket message. */
export function renderOnline(state, send) {
  const previous = last;
  last = state;
  receivedAt = performance.now();
  if (previous && previous.id === state.id && state.ply > previous.ply) playSound();
  document.title = state.your_turn && state.mode !== "hotseat"
    ? t("Your turn") + ` · ${t(state.title)} · hexgames` : `${t(state.title)} · hexgames`;
  // Clocks on the player cards.
  if (state.clock) {
    for (const player of state.players) {
      const card = document.querySelector(`.player[data-seat="${player.seat}"]`);
      if (card && !card.querySelector(".clock")) {
        card.append(el("span", { class: "clock", "data-seat": player.seat }));
      }
    }
    tick();
    if (!ticker) ticker = setInterval(tick, 100);
  }
  // A rematch started: both players go to it, holding the other colour.
  if (state.rematch && state.role === "player" && previous && !previous.rematch) {
    const token = localStorage.getItem("hexgames.tokens")
      && JSON.parse(localStorage.getItem("hexgames.tokens"))[state.id];
    // A seat credential moves to the other seat of the rematch; an identity-derived one
    // ("id.…") belongs to its game only: the new page then claims by identity.
    if (token && !token.startsWith("id.")) rememberToken(state.rematch, token);
    location.assign(`/play/${encodeURIComponent(state.rematch)}`);
    return;
  }
  const panel = document.getElementById("online");
  if (!panel) return;
  const parts = [];
  if (state.control && state.mode === "online") {
    const time = state.clock ? state.clock.describe_text ?? state.clock.describe : t("untimed");
    const kind = state.rated ? t("rated") : t("casual");
    parts.push(el("p", { class: "tc" }, `${time} · ${kind}`));
  }
  const mine = state.your_seats;
  const button = (text, message, cls = "small") => el("button", {
    class: cls, type: "button", text, onclick: () => send(message),
  });
  if (state.takeback_offer !== null && state.takeback_offer !== undefined && !state.is_over) {
    if (mine.includes(1 - state.takeback_offer)) {
      parts.push(el("p", { text: t("Your opponent asks to take back their last move.") }),
        el("div", { class: "row" },
          button(t("Accept takeback"), { type: "takeback", answer: "accept" }, "small primary"),
          button(t("Decline"), { type: "takeback", answer: "decline" })));
    } else if (mine.includes(state.takeback_offer)) {
      parts.push(el("p", { text: t("Takeback asked; waiting for your opponent.") }),
        button(t("Withdraw"), { type: "takeback", answer: "cancel" }));
    }
  } else if (state.can_request_takeback) {
    parts.push(button(t("↶ Ask to take back"), { type: "takeback", answer: "offer" }));
  }
  const invited = state.players.some((p) => p.kind === "human" && !p.player)
    && state.mode === "online";
  if (state.clock && state.clock.abort_in_ms !== null && !state.is_over && !invited) {
    const mover = state.players.find((p) => p.seat === state.current_seat);
    const name = mover ? t(cap(mover.color)) : t("The player");
    parts.push(el("p", { class: "hint",
      text: t("{name} has {seconds} s for a first move, or the game is aborted.",
        { name, seconds: Math.ceil(state.clock.abort_in_ms / 1000) }) }));
  }
  if (state.can_abort) parts.push(button(t("✕ Abort game"), { type: "abort" }));
  const absent = absenceNotice(state, send);  // an opponent gone: claim the game
  if (absent) parts.push(absent);
  if (state.rematch) {
    parts.push(el("a", { class: "button small primary", href: `/play/${state.rematch}`,
      text: t("Go to the rematch") }));
  }
  if (state.is_over && state.mode === "online" && state.role === "player") {
    const offers = state.rematch_offers || [];
    const theirs = offers.some((seat) => !mine.includes(seat));
    const ours = offers.some((seat) => mine.includes(seat));
    if (state.can_rematch && theirs) {
      parts.push(el("p", { text: t("Your opponent offers a rematch.") }),
        el("div", { class: "row" },
          button(t("Accept rematch"), { type: "rematch", answer: "offer" }, "small primary"),
          button(t("Decline"), { type: "rematch", answer: "decline" })));
    } else if (state.can_rematch && ours) {
      parts.push(el("p", { text: t("Rematch offered; waiting for your opponent.") }));
    } else if (state.can_rematch) {
      parts.push(button(t("⟲ Offer a rematch"), { type: "rematch", answer: "offer" },
        "small primary"));
    }
  }
  parts.push(el("label", { class: "sound" },
    el("input", { type: "checkbox", id: "sound", checked: soundOn(),
      onchange: (event) => localStorage.setItem(SOUND_KEY, event.target.checked ? "1" : "0") }),
    " " + t("Move sound")));
  panel.hidden = state.mode !== "online";
  panel.replaceChildren(...parts);
}
