// "Preparing the engine…": after an install the server compiles its rules engines once,
// in the background, while its pages already answer. Whatever needs an engine answers
// 503 with {preparing: true} until then. This module shows a notice with the progress
// (from GET /api/engine-status), and engineReady() resolves once the engine is ready, so
// that api() and the game page go on by themselves.

import { t } from "./i18n.js";

const POLL_MS = 1000;
// A bound on the wait: the server stops a compile that takes 30 minutes and compiles
// the game itself; past an hour the page says so instead of waiting for ever.
const GIVE_UP_MS = 60 * 60 * 1000;

let waiting = null;  // the one poll of this page, shared by every caller

async function status() {
  try {
    const response = await fetch("/api/engine-status", { cache: "no-store" });
    if (response.ok) return await response.json();
  } catch { /* the server restarts, or the network is down: ask again */ }
  return null;
}

function notice() {
  let node = document.getElementById("engine-notice");
  if (!node) {
    node = document.createElement("div");
    node.id = "engine-notice";
    node.className = "engine-notice";
    node.setAttribute("role", "status");
    const title = document.createElement("strong");
    title.textContent = t("Preparing the engine…");
    const bar = document.createElement("progress");
    bar.max = 1;
    bar.value = 0;
    const detail = document.createElement("span");
    detail.className = "detail";
    node.append(title, bar, detail);
    document.body.prepend(node);
  }
  return node;
}

/** One game's engine in words: "Benediction: compiling (3 of 14 parts, 12 s)". */
function gameState(game) {
  const said = { game: t(game.title), cached: game.cached, parts: game.parts,
    seconds: Math.round(game.seconds) };
  switch (game.state) {
    case "compiling": return t("{game}: compiling ({cached} of {parts} parts, {seconds} s)", said);
    case "waiting": return t("{game}: waiting", said);
    case "loading": return t("{game}: loading", said);
    case "ready": return t("{game}: ready", said);
    case "failed": return t("{game}: failed", said);
    default: return `${t(game.title)}: ${game.state}`;
  }
}

function show(state) {
  const node = notice();
  node.querySelector("progress").value = state.progress || 0;
  const games = (state.games || []).map(gameState);
  node.querySelector(".detail").textContent = state.state === "failed"
    ? (state.message_text ?? state.message)
    : t("{games}. Once after an install; this page goes on by itself.", { games: games.join(" · ") });
  node.dataset.state = state.state;
}

/** Resolves once the server's engines are ready (at once when they are); meanwhile a
 * notice shows the progress. Rejects after GIVE_UP_MS. */
export function engineReady() {
  if (!waiting) {
    waiting = (async () => {
      const started = Date.now();
      for (;;) {
        const state = await status();
        if (state && state.ready) break;
        if (state) show(state);
        if (Date.now() - started > GIVE_UP_MS) {
          const message = t("the engine is taking too long to prepare; reload the page later");
          notice().querySelector(".detail").textContent = message;
          throw new Error(message);
        }
        await new Promise((resolve) => { setTimeout(resolve, POLL_MS); });
      }
      const node = document.getElementById("engine-notice");
      if (node) {
        node.remove();
        window.dispatchEvent(new Event("hexgames:engine-ready"));
      }
    })();
    waiting.catch(() => { waiting = null; });
  }
  return waiting;
}

// A page the server answered "preparing" instead of itself reloads once the engine is.
if (document.body && document.body.dataset.reloadWhenReady) {
  engineReady().then(() => location.reload());
}
