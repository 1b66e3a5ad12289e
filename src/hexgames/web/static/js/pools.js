// Quick pairing (issue 32): one button per game and time control. A click joins that
// pool (a second click on it leaves); the server pairs players of the same pool by
// rating, in a range that widens as they wait, and the game opens for both: from the
// lobby socket's "pool_paired" message, or from this page's poll (every 2.5 s while it
// waits, else every 10 s; the poll also keeps its place: a page that stops asking
// leaves the pool). The counts come with every lobby message, sent when they change.

import { api, rememberToken } from "./api.js";
import { el } from "./common.js";
import { t } from "./i18n.js";

const POLL_MS = 2500;
const IDLE_TICKS = 4;  // polls skipped while not waiting
let container = null;
let overview = null;   // the last GET /api/pools
let waiting = null;    // {id, token, pool} while this page waits in a pool
let ticks = 0;
let busy = false;      // a join or leave under way

function status(text, kind = "hint") {
  const node = document.getElementById("pool-status");
  if (node) { node.textContent = text; node.dataset.kind = kind; }
}

function open(gameId) {
  const token = waiting && waiting.token;
  waiting = null;
  rememberToken(gameId, token);
  location.assign(`/play/${encodeURIComponent(gameId)}`);
}

function render() {
  if (!container || !overview) return;
  const games = [];
  for (const pool of overview.pools) {
    let group = games.find((g) => g.game === pool.game);
    if (!group) { group = { game: pool.game, title: pool.title, pools: [] }; games.push(group); }
    group.pools.push(pool);
  }
  container.replaceChildren(...games.map((group) => el("div", { class: "pool-game" },
    el("h3", { text: t(group.title) }),
    el("div", { class: "pool-buttons" }, ...group.pools.map((pool) => {
      const mine = waiting && waiting.pool === pool.id;
      return el("button", {
        type: "button", class: `pool-button${mine ? " waiting" : ""}`, "data-pool": pool.id,
        "aria-pressed": mine ? "true" : "false", title: pool.time_text ?? pool.time,
        onclick: () => (mine ? leave() : join(pool.id)),
      },
      el("span", { class: "label", text: pool.label_text ?? pool.label }),
      el("span", { class: "count", text: mine ? t("cancel") : t("{count} waiting", { count: pool.waiting }) }));
    })))));
}

function describeWait(entry) {
  const pool = overview && overview.pools.find((p) => p.id === entry.pool);
  const name = pool ? `${t(pool.title)} ${pool.label_text ?? pool.label}` : entry.pool;
  const values = { pool: name, rating: entry.rating, range: entry.range };
  return entry.rated
    ? t("Looking for an opponent: {pool}, rated, your rating {rating} ± {range}. Click it again to cancel.", values)
    : t("Looking for an opponent: {pool}, casual, your rating {rating} ± {range}. Click it again to cancel.", values);
}

async function refresh() {
  try {
    overview = await api("/api/pools");
  } catch (error) {
    status(error.message, "error");
    return;
  }
  const entry = overview.entry;
  if (waiting && !busy) {
    if (entry && entry.id === waiting.id && entry.status === "paired" && entry.game) {
      open(entry.game);
      return;
    }
    if (!entry || entry.id !== waiting.id || entry.status === "left") {
      // The server let us go (a lost connection, a quiet spell): take the place again.
      const pool = waiting.pool;
      waiting = null;
      await join(pool);
      return;
    }
    status(describeWait(entry));
  }
  render();
}

async function join(poolId) {
  if (busy) return;
  busy = true;
  status(t("Joining…"));
  try {
    const joined = await api("/api/pools/join", { method: "POST", body: { pool: poolId } });
    waiting = { id: joined.entry.id, token: joined.token, pool: poolId };
    if (joined.entry.status === "paired" && joined.entry.game) {
      open(joined.entry.game);
      return;
    }
    status(describeWait(joined.entry));
  } catch (error) {
    waiting = null;
    status(error.message, "error");
  } finally {
    busy = false;
  }
  render();
}

async function leave() {
  if (busy) return;
  busy = true;
  waiting = null;
  try {
    await api("/api/pools/leave", { method: "POST" });
    status("");
  } catch (error) {
    status(error.message, "error");
  } finally {
    busy = false;
  }
  await refresh();
}

/** The lobby socket's counts of players waiting (``[{pool, waiting}]``), pushed when
 * someone joins or leaves: shown at once, not at the next poll. */
export function onPoolCounts(counts) {
  if (!overview || !Array.isArray(counts)) return;
  const waitingIn = new Map(counts.map((entry) => [entry.pool, entry.waiting]));
  for (const pool of overview.pools) {
    if (waitingIn.has(pool.id)) pool.waiting = waitingIn.get(pool.id);
  }
  render();
}

/** The lobby socket says a pool paired this player: open the game. */
export function onPoolPaired(message) {
  if (waiting && message.entry === waiting.id && message.game) open(message.game);
}

/** Draw the pools into ``node`` and keep their counts fresh. */
export async function initPools(node) {
  container = node;
  await refresh();
  setInterval(() => {
    ticks += 1;
    if (waiting || ticks % IDLE_TICKS === 0) refresh();
  }, POLL_MS);
}
