// A player's page: name, ratings per game, games being played and finished. On one's own
// page, the forms to change the name, set a password and log in as another player.

import { api, gameIdFromPath } from "./api.js";
import { cap, el, showMe } from "./common.js";
import { date, t, titled } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const wanted = gameIdFromPath();  // the last part of /player/<name>

function status(message, kind = "ok") {
  const node = $("identity-status");
  node.textContent = message;
  node.dataset.kind = kind;
}

function opponents(game, you) {
  const names = game.seats.map((seat) => (seat.player ? seat.player.name
    : seat.kind === "ai" ? t("Computer (level {level})", { level: seat.level }) : "—"));
  return names.filter((_, i) => !game.seats[i].player || game.seats[i].player.id !== you).join(", ") || names.join(", ");
}

/** Who is to move, named: "your move" on one's own page, else "Bob9843 to move". */
function mover(game, owner, own) {
  if (game.your_turn) return own ? t("your move") : t("{name} to move", { name: owner });
  const seat = game.seats.find((entry) => entry.seat === game.turn);
  if (!seat) return t("in progress");
  if (seat.player) return t("{name} to move", { name: seat.player.name });
  return seat.kind === "ai" ? t("the computer to move") : t("waiting for an opponent");
}

function outcome(game, owner, own) {
  if (game.status !== "over") return mover(game, owner, own);
  const reason = game.reason_text ?? game.reason;  // in the page's language
  if (!game.winner) return reason || t("finished");
  const seat = game.your_seats.length === 1 ? game.your_seats[0] : null;
  if (seat !== null && game.colors.length && game.winner !== "draw") {
    const result = game.colors[seat] === game.winner ? t("won") : t("lost");
    return reason ? `${result} · ${reason}` : result;
  }
  if (game.winner === "draw") return t("draw");
  const winner = t(cap(game.winner));
  return reason ? t("{winner} won · {reason}", { winner, reason }) : t("{winner} won", { winner });
}

function gameRow(game, you, owner, own) {
  return el("li", { class: `game-row${game.status === "over" ? " over" : ""}${game.your_turn ? " my-turn" : ""}`,
    "data-id": game.id },
    el("span", { class: `badge badge-${game.game}`, text: t(game.title) }),
    el("span", { class: "what" },
      el("strong", { text: t("vs {names}", { names: opponents(game, you) }) }),
      el("small", { text: game.rated ? t("rated") + " · " + outcome(game, owner, own) : outcome(game, owner, own) })),
    el("span", { class: "when", text: game.updated_at ? date(game.updated_at) : "" }),
    el("span", { class: "go" },
      game.status === "over" ? null : el("a", { class: "button small", href: `/play/${game.id}`, text: t("Open") }),
      el("a", { class: "button small ghost", href: `/replay/${game.id}`, text: t("Replay") })));
}

function renderGames(list, games, you, owner, own, empty) {
  list.replaceChildren(...(games.length ? games.map((g) => gameRow(g, you, owner, own))
    : [el("li", { class: "empty", text: empty })]));
}

async function load() {
  const [player, me] = await Promise.all([
    api(`/api/players/${encodeURIComponent(wanted)}`), showMe($("me-link"))]);
  document.title = `${player.name} · hexgames`;
  $("player-name").textContent = player.name;
  $("player-since").textContent = t("Playing here since {date}", { date: date(player.created_at) });
  const body = $("ratings").querySelector("tbody");
  body.replaceChildren(...player.ratings.map((r) => el("tr", { "data-pool": r.pool },
    el("td", { text: titled(r.title) }),
    el("td", {}, el("b", { text: `${Math.round(r.rating)}${r.provisional ? "?" : ""}` }),
      el("small", { text: ` ±${Math.round(r.deviation)}` })),
    el("td", { text: String(r.games) }),
    el("td", { text: `${r.wins}/${r.losses}/${r.draws}` }))));
  $("ratings").hidden = !player.ratings.length;
  $("no-ratings").hidden = Boolean(player.ratings.length);
  const mine = Boolean(me && me.id === player.id);
  renderGames($("playing"), player.playing, player.id, player.name, mine, t("No game in progress."));
  renderGames($("finished"), player.finished, player.id, player.name, mine, t("No finished game yet."));
  renderTournaments(player.tournaments || []);
  $("identity").hidden = !mine;
  $("login-card").hidden = !mine;
  if (mine) {
    $("name-input").value = me.name;
    $("current-input").hidden = !me.has_password;
    $("password-form").querySelector("button").textContent = me.has_password ? t("Change password") : t("Set password");
    if (me.guest) status(t("You play as a guest: pick a name so that opponents know you."), "hint");
  }
}

$("name-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const me = await api("/api/me/name", { method: "POST", body: { name: $("name-input").value } });
    history.replaceState(null, "", `/player/${encodeURIComponent(me.name)}`);
    $("player-name").textContent = me.name;
    await showMe($("me-link"));  // the top bar shows the new name before the page says so
    status(t("Your name is now {name}.", { name: me.name }));
  } catch (error) { status(error.message, "error"); }
});

$("password-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = { password: $("password-input").value };
  if (!$("current-input").hidden) body.current = $("current-input").value;
  try {
    await api("/api/me/password", { method: "POST", body });
    $("password-input").value = ""; $("current-input").value = "";
    $("current-input").hidden = false;
    status(t("Password saved: log in with your name and it on another device."));
  } catch (error) { status(error.message, "error"); }
});

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const me = await api("/api/login", { method: "POST",
      body: { name: $("login-name").value, password: $("login-password").value } });
    location.href = `/player/${encodeURIComponent(me.name)}`;
  } catch (error) { status(error.message, "error"); $("identity").hidden = false; }
});

load().catch((error) => { $("player-name").textContent = error.message; });

function renderTournaments(entered) {
  $("tournaments-card").hidden = !entered.length;
  $("player-tournaments").replaceChildren(...entered.map((entry) => el("li", {},
    el("a", { href: `/tournament/${encodeURIComponent(entry.id)}`,
      text: `${entry.kind === "arena" ? t("Arena") : t("Swiss")} · ${cap(entry.game)} · ${
        new Date(entry.starts_at).toLocaleDateString()}${entry.status === "finished" ? "" : ` · ${
        entry.status === "running" ? t("playing") : t("starting soon")}`}` }))));
}
