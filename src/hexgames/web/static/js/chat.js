// The game page's chat panel (issue 42): a tab per room this visitor reads, the
// messages as plain text (textContent only: a message is never HTML, a link stays
// text), a box with a character counter, the reason when posting is refused, mute and
// report. New messages come over the game's socket (play.js dispatches them as
// "hexgames:chat" events); the rooms are read whenever the socket (re)opens.
// Guests see the chat only after asking for it ("Show chat"), and never write.

import { api, gameIdFromPath } from "./api.js";
import { el } from "./common.js";
import { t } from "./i18n.js";

const gameId = gameIdFromPath();
const base = `/api/games/${encodeURIComponent(gameId)}/chat`;
const body = document.getElementById("chat-body");
const head = document.querySelector("#chat .chat-head");
const SHOW_FOR_GUESTS = "hexgames.chat.shown";

const ROOM_NAMES = { players: () => t("Players"), spectators: () => t("Spectators") };

let view = null;        // the last GET of the chat (rooms, may post, muted...)
let current = null;     // the room shown
let draft = "";         // what is typed, kept across redraws
let notice = "";        // the last refusal or failure, shown under the box
const unread = {};      // room -> messages come while another tab was shown
const reported = new Set();  // "room:seq" reported from this page

function guestHidden() {
  const guest = !view || !view.you || view.you.guest;
  let shown = false;
  try { shown = localStorage.getItem(SHOW_FOR_GUESTS) === "1"; } catch { /* private mode */ }
  return guest && !shown;
}

async function load() {
  try {
    view = await api(base);
  } catch (error) {
    body.replaceChildren(el("p", { class: "hint", text: error.message }));
    return;
  }
  const names = view.rooms.map((room) => room.room);
  if (!names.includes(current)) current = names[0] || null;
  render();
}

function render() {
  head.querySelector(".chat-mute")?.remove();
  if (!view) return;
  if (!view.enabled) {
    body.replaceChildren(el("p", { class: "hint chat-off", text: view.off_text || t("Chat is off") }));
    return;
  }
  if (guestHidden()) {
    body.replaceChildren(
      el("p", { class: "hint", text: t("Chat is hidden for guests.") }),
      el("button", { class: "small chat-show", type: "button", text: t("Show chat"), onclick: () => {
        try { localStorage.setItem(SHOW_FOR_GUESTS, "1"); } catch { /* private mode */ }
        render();
      } }));
    return;
  }
  if (view.you) {
    head.append(el("button", {
      class: "ghost small chat-mute", type: "button", "aria-pressed": view.muted ? "true" : "false",
      text: view.muted ? t("Unmute") : t("Mute"), onclick: () => mute(!view.muted),
    }));
  }
  if (view.muted) {
    body.replaceChildren(el("p", { class: "hint chat-muted", text: t("You muted this chat.") }));
    return;
  }
  const room = view.rooms.find((each) => each.room === current);
  if (!room) {
    body.replaceChildren(el("p", { class: "hint", text: t("No chat room for you here.") }));
    return;
  }
  body.replaceChildren(tabs(), messageList(room), writer(room));
  scrollDown();
}

function tabs() {
  return el("div", { class: "chat-tabs", role: "tablist" }, view.rooms.map((room) => el("button", {
    class: `chat-tab${room.room === current ? " selected" : ""}`, type: "button", role: "tab",
    "aria-selected": room.room === current ? "true" : "false", "data-room": room.room,
    onclick: () => { current = room.room; unread[room.room] = 0; notice = ""; render(); },
  }, ROOM_NAMES[room.room] ? ROOM_NAMES[room.room]() : room.room,
  unread[room.room] ? el("span", { class: "chat-unread", text: String(unread[room.room]) }) : null)));
}

function messageList(room) {
  const list = el("ol", { class: "chat-messages", "aria-live": "polite" });
  if (!room.messages.length) {
    list.append(el("li", { class: "hint chat-empty", text: t("No messages yet.") }));
  }
  for (const message of room.messages) list.append(messageItem(message));
  return list;
}

function messageItem(message) {
  const key = `${message.room}:${message.seq}`;
  const mine = view.you && message.player_id === view.you.id;
  const item = el("li", { class: `chat-message${mine ? " mine" : ""}`, "data-seq": String(message.seq) },
    el("span", { class: "chat-name", text: message.name }),
    el("span", { class: "chat-text", text: message.text }));
  if (!mine && view.you) {
    const done = reported.has(key);
    item.append(el("button", {
      class: "ghost small chat-report", type: "button", disabled: done,
      title: t("Report this message to the moderators"),
      text: done ? t("Reported") : t("Report"),
      onclick: (event) => report(message, event.currentTarget),
    }));
  }
  return item;
}

function writer(room) {
  if (!room.can_post) {
    return el("p", { class: "hint chat-refusal", text: room.refusal_text || room.refusal || "" });
  }
  const input = el("input", {
    class: "chat-input", type: "text", autocomplete: "off", "aria-label": t("Message"),
    placeholder: t("Say something…"),
  });
  input.value = draft;
  const counter = el("span", { class: "chat-counter", "aria-live": "off" });
  const status = el("p", { class: "chat-notice", role: "status", text: notice });
  const count = () => {
    const length = [...input.value].length;
    counter.textContent = `${length}/${view.max_text}`;
    counter.classList.toggle("over", length > view.max_text);
  };
  input.addEventListener("input", () => { draft = input.value; count(); });
  count();
  const form = el("form", { class: "chat-form", autocomplete: "off" },
    el("div", { class: "chat-row" }, input,
      el("button", { class: "small primary", type: "submit", text: t("Send") })),
    counter, status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value;
    if (!text.trim()) return;
    try {
      const answer = await api(base, { method: "POST", body: { room: room.room, text } });
      draft = ""; notice = "";
      if (!add(answer.message)) redraw();  // the socket showed it first: clear the box
    } catch (error) {
      notice = error.message;
      status.textContent = notice;
    }
  });
  return form;
}

/** A message for a room (posted here, or pushed by the socket): shown once. */
function add(message) {
  if (!view || view.muted) return false;
  const room = view.rooms.find((each) => each.room === message.room);
  if (!room || room.messages.some((each) => each.seq === message.seq)) return false;
  room.messages.push(message);
  if (message.room !== current) {
    unread[message.room] = (unread[message.room] || 0) + 1;
  }
  if (!guestHidden()) redraw();
  return true;
}

/** Draw the panel again, the message box keeping the focus it had. */
function redraw() {
  const focused = document.activeElement?.classList.contains("chat-input");
  render();
  if (focused) body.querySelector(".chat-input")?.focus();
}

async function mute(on) {
  try {
    await api(`${base}/mute`, { method: "POST", body: { on } });
  } catch (error) {
    notice = error.message;
  }
  await load();
}

async function report(message, button) {
  try {
    await api(`${base}/report`, { method: "POST", body: { room: message.room, seq: message.seq } });
    reported.add(`${message.room}:${message.seq}`);
    button.textContent = t("Reported");
    button.disabled = true;
  } catch (error) {
    button.title = error.message;
    button.textContent = error.message;
  }
}

function scrollDown() {
  const list = body.querySelector(".chat-messages");
  if (list) list.scrollTop = list.scrollHeight;
}

document.addEventListener("hexgames:chat", (event) => add(event.detail.message));
// Read once the socket is open (after the page claimed its seat: who reads which room
// depends on it), and again at every reconnection.
document.addEventListener("hexgames:socket-open", () => { load(); });
// Once a rated game is over its players read the spectators' room too.
document.addEventListener("hexgames:game-over", () => { load(); });
if (document.documentElement.dataset.gameSocket === "open") load();
