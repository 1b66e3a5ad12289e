// Pieces shared by the game page and the replay viewer: players, move list, banner.

import { localizeBoards, t } from "./i18n.js";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const cap = (text) => (text ? text[0].toUpperCase() + text.slice(1) : "");

export function swatch(color) {
  return el("span", { class: `swatch swatch-${color}`, "aria-hidden": "true" });
}

/** Player cards: colour, name, who is to act, and the AI's thinking indicator. */
export function renderPlayers(container, state, { showTurn = true } = {}) {
  container.replaceChildren(...state.players.map((player) => {
    const active = showTurn && !state.is_over && player.seat === state.current_seat;
    const you = state.your_seats.includes(player.seat) && state.mode !== "hotseat";
    const won = state.is_over && state.winner === player.color;
    return el("div", {
      class: `player${active ? " active" : ""}${won ? " won" : ""}`,
      "data-seat": player.seat,
    },
      swatch(player.color),
      el("div", { class: "who" },
        el("strong", { text: t(cap(player.color)) }),
        player.player
          ? el("a", { class: "name", href: `/player/${encodeURIComponent(player.player.name)}`, text: player.player.name })
          : el("span", { class: "name", text: player.name_text ?? player.name })),
      you && player.name !== "You" ? el("span", { class: "tag", text: t("you") }) : null,
      state.mode === "online" && Array.isArray(state.present)
        ? el("span", {
          class: `presence ${state.present.includes(player.seat) ? "on" : "off"}`,
          title: state.present.includes(player.seat) ? t("connected") : t("not connected"),
        }) : null,
      active && state.thinking && player.kind === "ai"
        ? el("span", { class: "thinking", title: t("thinking") }, el("i"), el("i"), el("i")) : null,
      won ? el("span", { class: "tag win", text: t("winner") }) : null,
    );
  }));
}

/** Group the history into turns: a new turn starts at every action that opened one. */
export function groupTurns(history) {
  const turns = [];
  history.forEach((ply, index) => {
    if (ply.turn_start || !turns.length) turns.push({ color: ply.color, plies: [] });
    turns[turns.length - 1].plies.push({ ...ply, index });
  });
  return turns;
}

/**
 * The move list, grouped by turn. `current` (number of plies shown) marks the last shown
 * action; `onPick(ply)` makes each action clickable (the replay viewer jumps there).
 */
export function renderMoves(container, history, { current = history.length, onPick } = {}) {
  const turns = groupTurns(history);
  container.replaceChildren(...turns.map((turn, number) => el("li", { class: "turn" },
    el("span", { class: "num", text: `${number + 1}.` }),
    swatch(turn.color),
    el("span", { class: "acts" }, ...turn.plies.map((ply) => el(onPick ? "button" : "span", {
      class: `act${ply.index === current - 1 ? " current" : ""}`,
      text: ply.notation,
      onclick: onPick ? () => onPick(ply.index + 1) : null,
    }))),
  )));
  // Scroll the list itself, never the page: scrollIntoView would also scroll the window
  // when the list has no scroll box of its own (the one-column phone layout).
  const mark = container.querySelector(".current");
  if (container.scrollHeight <= container.clientHeight) return;
  if (!mark) { container.scrollTop = container.scrollHeight; return; }
  const top = mark.getBoundingClientRect().top - container.getBoundingClientRect().top
    + container.scrollTop;
  if (top < container.scrollTop) container.scrollTop = top;
  else if (top + mark.offsetHeight > container.scrollTop + container.clientHeight) {
    container.scrollTop = top + mark.offsetHeight - container.clientHeight;
  }
}

/**
 * The end of a game above the board: who won, why, the final score and rating changes,
 * on one or two lines. The score's breakdown (a table of a row per scoring term) goes
 * to `breakdownSlot` where the page has one: beside the board on a wide screen, under it
 * on a narrow one (issue 39, row 14: above the board it took the board's room, down to
 * 40% of the window, and pushed it off a phone's screen); else in the banner.
 */
export function showBanner(banner, state, breakdownSlot = null) {
  if (breakdownSlot) breakdownSlot.hidden = true;
  if (!state.is_over) { banner.hidden = true; return; }
  banner.hidden = false;
  const you = state.your_seats.length === 1
    ? state.players.find((p) => p.seat === state.your_seats[0]) : null;
  let head = state.winner === "draw" ? t("Draw")
    : state.winner ? t("{color} wins", { color: t(cap(state.winner)) }) : t("Game over");
  if (you && state.winner && state.winner !== "draw") {
    head = state.winner === you.color ? t("You win!") : t("You lose");
  }
  const result = state.result_text ?? state.result;
  const reason = result ? result.replace(/^[^(]*\(?/, "").replace(/\)$/, "") : "";
  const lines = state.final && Array.isArray(state.final.breakdown) ? state.final.breakdown : null;
  // With a score breakdown the final score says why; the termination goes to a small note.
  banner.replaceChildren(el("strong", { text: head }),
    el("span", { class: lines ? "ended" : null, text: lines && reason ? t("game ended: {reason}", { reason }) : reason }));
  // The score line by line (the table is shown last: CSS order), where the game gives it.
  if (lines && state.final.score) {
    const table = breakdownTable(lines, Object.keys(state.final.score));
    if (breakdownSlot) {
      breakdownSlot.replaceChildren(el("h3", { text: t("Final score") }), table);
      breakdownSlot.hidden = false;
    } else banner.append(table);
  }
  // The engine's final score (games that keep one), e.g. "Dark 6 · Light 15.5".
  const score = state.final && state.final.score;
  if (score && typeof score === "object" && !Array.isArray(score)) {
    banner.append(el("span", { class: "final-score" }, ...Object.entries(score).map(
      ([side, value], i) => el("span", { class: "final-side", "data-side": side },
        i ? " · " : "", swatch(side), ` ${t(cap(side))} `, el("b", { text: String(value) })))));
  }
  // A rated game: each player's rating before and after, and the change.
  if (Array.isArray(state.rating_changes) && state.rating_changes.length) {
    banner.append(el("span", { class: "rating-changes", id: "rating-changes" },
      ...state.rating_changes.map((change, i) => {
        const player = state.players.find((p) => p.seat === change.seat);
        const name = player && player.player ? player.player.name
          : t("Player {number}", { number: change.seat + 1 });
        const sign = change.change > 0 ? "+" : change.change < 0 ? "−" : "±";
        return el("span", { class: "rating-change", "data-seat": change.seat },
          i ? " · " : "", `${name} ${Math.round(change.before)} → ${Math.round(change.after)} `,
          el("b", { class: change.change >= 0 ? "up" : "down",
            text: `(${sign}${Math.abs(Math.round(change.change))})` }));
      })));
  }
}

/** The top bar's link to this browser's player page, named after the player. */
export async function showMe(link) {
  if (!link) return null;
  try {
    const response = await fetch("/api/me");
    if (!response.ok) return null;
    const me = await response.json();
    link.textContent = me.name;
    link.href = `/player/${encodeURIComponent(me.name)}`;
    link.title = t("Your player page: name, password, ratings and games");
    return me;
  } catch { return null; }
}

/** The final score line by line (the game's ``score_breakdown``): one row per scoring term. */
export function breakdownTable(lines, sides) {
  const points = (value) => (value ? String(value) : "–");
  return el("table", { class: "breakdown", id: "breakdown" },
    el("thead", {}, el("tr", {}, el("th", { text: t("Score") }),
      ...sides.map((side) => el("th", {}, swatch(side), ` ${t(cap(side))}`)))),
    el("tbody", {}, ...lines.map((line) => el("tr", {},
      el("th", { scope: "row" }, el("span", { text: line.label }),
        el("small", { text: line.detail })),
      ...sides.map((side) => el("td", { text: points(line.points[side]) }))))));
}

/** Put the server's SVG in place so that it scales to its box (keeps the viewBox). */
export function mountSvg(container, svgText) {
  container.innerHTML = svgText;
  const svg = container.querySelector("svg");
  if (!svg) return null;
  localizeBoards(svg);
  if (!svg.getAttribute("viewBox")) {
    const w = parseFloat(svg.getAttribute("width")), h = parseFloat(svg.getAttribute("height"));
    if (w && h) svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  }
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  return svg;
}
