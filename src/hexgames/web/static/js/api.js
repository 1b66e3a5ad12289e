// Talking to the server, and remembering which seats this browser holds.
// Seat tokens live in localStorage so that a reload or a later visit resumes the game.

import { engineReady } from "./engine.js";
import { t } from "./i18n.js";

export { engineReady };

const TOKENS = "hexgames.tokens";
const INVITES = "hexgames.invites";

function readMap(key) {
  try { return JSON.parse(localStorage.getItem(key) || "{}"); } catch { return {}; }
}

function writeMap(key, map) { localStorage.setItem(key, JSON.stringify(map)); }

export function tokenFor(gameId) { return readMap(TOKENS)[gameId] || null; }

export function rememberToken(gameId, token) {
  if (!token) return;
  const map = readMap(TOKENS); map[gameId] = token; writeMap(TOKENS, map);
}

export function inviteFor(gameId) { return readMap(INVITES)[gameId] || null; }

export function rememberInvite(gameId, invite) {
  const map = readMap(INVITES); map[gameId] = invite; writeMap(INVITES, map);
}

/** JSON request; throws an Error carrying the server's message on any 4xx/5xx.
 * ``signal`` (an AbortSignal) abandons it: the server drops work it has not started.
 * A request refused because the engine is still being prepared (503, ``preparing``)
 * waits for it, showing the progress, and is made again. */
export async function api(path, { method = "GET", body, signal } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(path, {
      method,
      signal,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch { /* not JSON */ }
    if (response.status === 503 && data && data.preparing && attempt < 4) {
      await engineReady();
      continue;
    }
    if (!response.ok) {
      // ``message``: the server's words in the page's language (``error``: in English,
      // kept on the Error as ``english`` for the pages that recognize a refusal by it).
      const failure = new Error((data && (data.message || data.error))
        || t("request failed ({status})", { status: response.status }));
      failure.english = (data && data.error) || `request failed (${response.status})`;
      failure.status = response.status;
      throw failure;
    }
    return data;
  }
}

// Every page: the notice shows at once while the server prepares its engine.
engineReady().catch(() => { /* shown on the notice */ });

export function gameIdFromPath() {
  const parts = location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] || "");
}

export function absolute(path) { return new URL(path, location.origin).href; }
