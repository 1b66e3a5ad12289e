// Turn alerts: a sound and, if the person allowed it, a browser notification when it
// becomes their turn in any of their online games, on any page of the site. The bell in
// the top bar opens a panel that explains them and asks the browser's permission only
// when "Show notifications" is clicked (never on page load); the choices are kept in
// localStorage. Correspondence turns may also be emailed (the same panel).
//
// One browser, one socket: the tabs elect the one holding the Web Lock
// "hexgames-alerts-socket" to open /ws/alerts, and it relays each `your_turn` message to
// the other tabs (BroadcastChannel). Every tab then decides: the tab that has the focus
// on that very game says nothing (the game page plays its own move sound); otherwise one
// tab alerts, the first to mark the turn as seen in localStorage under the Web Lock
// "hexgames-alerts-claim" (a focused tab at once, the others a moment later).

import { el } from "./common.js";
import { t, tn } from "./i18n.js";
import { showYourTurn } from "./yourturn.js";

const SETTINGS_KEY = "hexgames.alerts";     // {sound, notify}
const SEEN_KEY = "hexgames.alerts.seen";    // {"<game>:<ply>": ms} turns alerted or seen
const CHANNEL = "hexgames-alerts";
const UNFOCUSED_DELAY_MS = 300;             // a focused tab claims a turn first
const SEEN_KEPT = 200;

// What became of each turn message in this tab (diagnostics; the browser tests read it).
const log = [];
const status = { log, listening: false }; // listening: this tab's socket is registered
window.hexgamesAlerts = status;

function settings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}") || {}; } catch { /* reset */ }
  return { sound: saved.sound !== false, notify: saved.notify === true };
}

function save(changes) {
  localStorage.setItem(SETTINGS_KEY, JSON.stringify({ ...settings(), ...changes }));
  updateButton();
}

function permission() {
  return "Notification" in window ? Notification.permission : "unsupported";
}

// ------------------------------------------------------------------ turns
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function readSeen() {
  try { return JSON.parse(localStorage.getItem(SEEN_KEY) || "{}") || {}; } catch { return {}; }
}

/** Mark ``key`` seen; true when this tab is the first (under a lock where there is one). */
async function claim(key) {
  const take = () => {
    const seen = readSeen();
    if (seen[key]) return false;
    seen[key] = Date.now();
    const kept = Object.entries(seen).sort((a, b) => b[1] - a[1]).slice(0, SEEN_KEPT);
    localStorage.setItem(SEEN_KEY, JSON.stringify(Object.fromEntries(kept)));
    return true;
  };
  if (navigator.locks) return navigator.locks.request("hexgames-alerts-claim", take);
  return take();
}

function timeLeft(deadline) {
  if (typeof deadline !== "number") return "";
  const hours = (deadline - Date.now()) / 3_600_000;
  if (hours <= 0) return "";
  if (hours >= 48) return " · " + tn("{n} day left", "{n} days left", Math.floor(hours / 24));
  if (hours >= 1) return " · " + t("{hours} h left", { hours: Math.floor(hours) });
  return " · " + t("{minutes} min left", { minutes: Math.max(1, Math.ceil(hours * 60)) });
}

function describe(turn) {
  const opponent = String(turn.opponent || t("Your opponent"));
  const moved = turn.last ? t("{opponent} played {action}", { opponent, action: turn.last })
    : t("{opponent} is waiting", { opponent });
  return `${moved} · ${turn.time || ""}${timeLeft(turn.deadline)}`;
}

let audio = null;
function playSound() {
  try {
    audio = audio || new Audio("/static/move.wav");
    audio.currentTime = 0;
    const playing = audio.play();
    if (playing && playing.catch) playing.catch(() => {}); // no gesture yet: silence
  } catch { /* no audio here */ }
}

function notify(turn, url) {
  try {
    const shown = new Notification(t("Your turn · {game}", { game: turn.title ? t(turn.title) : "hexgames" }), {
      body: describe(turn), tag: `hexgames-turn-${turn.id}`, icon: "/static/favicon.svg",
    });
    shown.onclick = () => { window.focus(); location.href = url; shown.close(); };
  } catch { /* e.g. a browser that shows them only from a service worker */ }
}

async function handle(turn) {
  if (!turn || turn.type !== "your_turn" || typeof turn.id !== "string") return;
  const key = `${turn.id}:${turn.ply}`;
  const url = `/play/${encodeURIComponent(turn.id)}`;
  showYourTurn(); // a page listing "Your turn" shows the game at once
  const focused = document.hasFocus();
  const watching = focused && location.pathname === url;
  if (!focused) await sleep(UNFOCUSED_DELAY_MS);
  if (!(await claim(key))) { log.push({ key, what: "seen elsewhere" }); return; }
  if (watching) { log.push({ key, what: "watching" }); return; }
  const chosen = settings();
  const done = [];
  if (chosen.sound) { playSound(); done.push("sound"); }
  if (chosen.notify && permission() === "granted") { notify(turn, url); done.push("notification"); }
  log.push({ key, what: done.join("+") || "silent" });
}

// ------------------------------------------------------------------ followed players
// A followed player started a game ({"type": "followed", ...}) or created a tournament
// ({"type": "followed_tournament", ...}): the bell shows a dot and lists it (the latest
// few, kept in localStorage), and one tab says it (a sound, a notification, a note with a
// link to watch the game or open the tournament), like a turn.
const NEWS_KEY = "hexgames.alerts.news";    // [{game_id | tournament_id, player, title, url, at}]
const NEWS_KEPT = 10;
const NEWS_SEEN_KEY = "hexgames.alerts.news-seen";  // ms: the panel last opened

function unseenNews() {
  const seen = Number(localStorage.getItem(NEWS_SEEN_KEY) || 0);
  return readNews().filter((item) => item.at > seen).length;
}
status.followed = [];                       // newsId()s heard in this tab (the tests read it)

function readNews() {
  try { return JSON.parse(localStorage.getItem(NEWS_KEY) || "[]") || []; } catch { return []; }
}

// A game's news is known by its game id, a tournament's by "tournament:<id>".
function newsId(news) {
  return news.tournament_id ? `tournament:${news.tournament_id}` : news.game_id;
}

function followedText(news) {
  const words = { player: news.player, game: news.title ? t(news.title) : "hexgames" };
  return news.tournament_id ? t("{player} created a tournament of {game}", words)
    : t("{player} started a game of {game}", words);
}

function followedAction(news) {
  return news.tournament_id ? t("Open") : t("Watch");
}

// A message of the socket is news only with its id and a link of this site's own.
function wellFormed(news) {
  if (!news || typeof news.url !== "string") return false;
  if (news.type === "followed_tournament") {
    return typeof news.tournament_id === "string" && news.url.startsWith("/tournament/");
  }
  return typeof news.game_id === "string" && news.url.startsWith("/play/");
}

function showNote(news) {
  let note = document.getElementById("alerts-note");
  if (!note) {
    note = el("div", { class: "alerts-note", id: "alerts-note", role: "status" });
    document.body.append(note);
  }
  note.replaceChildren(el("span", { text: followedText(news) }), " ",
    el("a", { class: "button small primary", id: "alerts-note-watch", href: news.url,
      text: followedAction(news) }),
    el("button", { type: "button", class: "small ghost", "aria-label": t("Close"), text: "×",
      onclick: () => note.remove() }));
}

async function handleFollowed(news) {
  if (!wellFormed(news)) return;
  const id = newsId(news);
  status.followed.push(id);
  const kept = readNews().filter((item) => newsId(item) !== id);
  const item = { player: String(news.player || ""), title: String(news.title || ""),
    url: news.url, at: Date.now() };
  if (news.type === "followed_tournament") item.tournament_id = news.tournament_id;
  else item.game_id = news.game_id;
  kept.unshift(item);
  localStorage.setItem(NEWS_KEY, JSON.stringify(kept.slice(0, NEWS_KEPT)));
  updateButton();
  if (panel && !panel.hidden) renderPanel();
  showNote(news);
  if (!document.hasFocus()) await sleep(UNFOCUSED_DELAY_MS);
  if (!(await claim(`followed:${id}`))) return;
  const chosen = settings();
  if (chosen.sound) playSound();
  if (chosen.notify && permission() === "granted") {
    try {
      const shown = new Notification(followedText(news), { tag: `hexgames-followed-${id}`,
        icon: "/static/favicon.svg" });
      shown.onclick = () => { window.focus(); location.href = news.url; shown.close(); };
    } catch { /* notifications from a service worker only */ }
  }
}

function newsPart() {
  const news = readNews();
  if (!news.length) return null;
  return el("div", { class: "alerts-news", id: "alerts-news" },
    el("h3", { text: t("Followed players") }),
    el("ul", {}, ...news.map((item) => el("li", {},
      el("span", { text: followedText(item) }), " ",
      el("a", { href: item.url, text: followedAction(item) })))),
    el("button", { type: "button", class: "small ghost", text: t("Clear"), onclick: () => {
      localStorage.removeItem(NEWS_KEY);
      renderPanel();
    } }));
}

// What the socket says that a page acts on (others, like "pong", are ignored).
const NEWS_TYPES = new Set(["your_turn", "followed", "followed_tournament"]);

function dispatch(message) {
  if (message && (message.type === "followed" || message.type === "followed_tournament")) {
    handleFollowed(message);
  } else handle(message);
}

// ------------------------------------------------------------------ the socket
const channel = "BroadcastChannel" in window ? new BroadcastChannel(CHANNEL) : null;
if (channel) channel.onmessage = (event) => { dispatch(event.data); };

function connect() {
  let retry = 1000;
  const open = () => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/alerts`);
    socket.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.type === "hello") { retry = 1000; status.listening = true; }
      if (!NEWS_TYPES.has(message.type)) return;
      if (channel && elected) channel.postMessage(message); // (unelected: every tab hears)
      dispatch(message);
    };
    socket.onclose = (event) => {
      status.listening = false;
      const wait = event.code === 4401 ? 60_000 : retry; // no identity yet: rarely
      retry = Math.min(retry * 2, 30_000);
      setTimeout(open, wait);
    };
  };
  open();
  return new Promise(() => {}); // held until the tab closes: then another tab takes over
}

const elected = Boolean(navigator.locks);
if (elected) navigator.locks.request("hexgames-alerts-socket", connect);
else connect(); // no Web Locks (plain http on the network): a socket per tab

// ------------------------------------------------------------------ the bell and its panel
let button = null;
let panel = null;

function bell() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", "M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6zm-2 15a2 2 0 0 0 4 0");
  svg.append(path);
  return svg;
}

function updateButton() {
  if (!button) return;
  const chosen = settings();
  const notifying = chosen.notify && permission() === "granted";
  button.dataset.state = notifying ? "notify" : chosen.sound ? "sound" : "off";
  button.dataset.news = String(unseenNews());  // a dot: followed players' new games
  if (chosen.sound && notifying) button.title = t("Turn alerts: sound and notifications");
  else if (chosen.sound) button.title = t("Turn alerts: sound");
  else if (notifying) button.title = t("Turn alerts: notifications");
  else button.title = t("Turn alerts: off");
}

function notificationPart() {
  const state = permission();
  if (state === "unsupported") {
    return el("p", { class: "hint", text: t("This browser shows notifications only for sites "
      + "opened over https (or on this computer).") });
  }
  if (state === "denied") {
    return el("p", { class: "hint", id: "alerts-blocked", text: t("Notifications are blocked "
      + "for this site: allow them in the browser's site settings, then come back.") });
  }
  if (state === "default") {
    return el("div", { class: "alerts-ask" },
      el("button", { type: "button", class: "small primary", id: "alerts-notify-ask",
        onclick: async () => {
          let answer = "default";
          try { answer = await Notification.requestPermission(); } catch { /* old API */ }
          if (answer === "granted") save({ notify: true });
          renderPanel();
        } }, t("Show notifications")),
      el("p", { class: "hint", text: t("Your browser will ask whether this site may show "
        + "notifications; they appear even when this tab is in the background.") }));
  }
  return el("label", { class: "alerts-check" },
    el("input", { type: "checkbox", id: "alerts-notify", checked: settings().notify,
      onchange: (event) => save({ notify: event.target.checked }) }),
    " " + t("Show notifications"));
}

async function emailPart(holder) {
  let me = null, mine = null;
  try {
    const [a, b] = await Promise.all([fetch("/api/me"), fetch("/api/me/alerts")]);
    if (a.ok && b.ok) { me = await a.json(); mine = await b.json(); }
  } catch { /* offline */ }
  if (!me || !mine || !mine.email_available) { holder.replaceChildren(); return; }
  if (me.guest) {
    holder.replaceChildren(el("p", { class: "hint", text: t("Emails for correspondence turns "
      + "are for named players: pick a name on your player page.") }));
    return;
  }
  const status = el("p", { class: "form-status", id: "alerts-email-status", role: "status" });
  const say = (text, kind = "hint") => { status.textContent = text; status.dataset.kind = kind; };
  const post = async (body) => {
    const response = await fetch("/api/me/alerts", { method: "POST",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      // ``message``: the server's words in the page's language (``error``: in English).
      throw new Error(data.message || data.error || t("request failed ({status})", { status: response.status }));
    }
    return data;
  };
  const input = el("input", { type: "email", id: "alerts-email", maxlength: "254",
    autocomplete: "email", placeholder: "you@example.org", value: mine.email || "" });
  const box = el("input", { type: "checkbox", id: "alerts-email-on", checked: mine.turn_emails,
    onchange: async () => {
      try { mine = await post({ turn_emails: box.checked }); show(); } catch (error) { say(error.message, "error"); }
    } });
  const show = () => {
    if (!mine.email) say(t("No address yet."));
    else if (!mine.email_verified) say(t("Not confirmed yet: open the link sent to {email}.", { email: mine.email }));
    else say(t("Confirmed: {email}.", { email: mine.email }));
  };
  const form = el("form", { class: "alerts-email-form", onsubmit: async (event) => {
    event.preventDefault();
    try {
      mine = await post({ email: input.value.trim() || null });
      show();
    } catch (error) { say(error.message, "error"); }
  } }, input, el("button", { type: "submit", class: "small", text: t("Save") }));
  holder.replaceChildren(
    el("label", { class: "alerts-check" }, box, " " + t("Email me when it is my turn in a correspondence game")),
    form, status);
  show();
}

function renderPanel() {
  if (!panel) return;
  const emails = el("div", { class: "alerts-email" });
  panel.replaceChildren(
    el("h2", { text: t("Turn alerts") }),
    el("p", { class: "hint", text: t("When it becomes your turn in any of your online "
      + "games, an open page of this site tells you, even from another tab.") }),
    el("label", { class: "alerts-check" },
      el("input", { type: "checkbox", id: "alerts-sound", checked: settings().sound,
        onchange: (event) => save({ sound: event.target.checked }) }),
      " " + t("Play a sound")),
    notificationPart(),
    emails,
    newsPart() || "");
  updateButton();
  emailPart(emails);
}

function setOpen(open) {
  panel.hidden = !open;
  button.setAttribute("aria-expanded", String(open));
  if (open) {
    localStorage.setItem(NEWS_SEEN_KEY, String(Date.now()));  // the news is seen: no dot
    renderPanel();
  }
}

function install() {
  const bar = document.querySelector(".topbar");
  if (!bar || document.getElementById("alerts-toggle")) return;
  if (!document.querySelector('link[href="/static/css/alerts.css"]')) {
    document.head.append(el("link", { rel: "stylesheet", href: "/static/css/alerts.css" }));
  }
  button = el("button", { type: "button", class: "alerts-toggle ghost", id: "alerts-toggle",
    "aria-expanded": "false", "aria-controls": "alerts-panel", "aria-label": t("Turn alerts") },
    bell(), el("span", { class: "label", text: t("Alerts") }));
  panel = el("div", { class: "alerts-panel", id: "alerts-panel", role: "dialog",
    "aria-label": t("Turn alerts"), hidden: true });
  button.addEventListener("click", (event) => { event.stopPropagation(); setOpen(panel.hidden); });
  document.addEventListener("click", (event) => {
    // The path as dispatched: a click inside may have re-rendered (detached) its target.
    if (!panel.hidden && !event.composedPath().includes(panel)) setOpen(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) { setOpen(false); button.focus(); }
  });
  bar.insertBefore(button, bar.querySelector(".conn"));
  bar.append(panel);
  updateButton();
}

install();
