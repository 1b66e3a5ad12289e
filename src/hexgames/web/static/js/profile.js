// A player's profile beyond the ratings table (player.js): the rating history drawn as
// one SVG line graph per game and variant, win/draw/loss statistics by colour, and the
// searchable, paged list of finished games with the export of every record as a zip.
// Everything is drawn here from the JSON of /api/players/<name>/{history,stats,games}:
// no library, nothing from another site (the CSP allows neither).

import { api, gameIdFromPath } from "./api.js";
import { cap, el } from "./common.js";
import { date, number, t, titled, tn } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const wanted = gameIdFromPath();  // the last part of /player/<name>
const PER_PAGE = 20;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  node.append(...children);
  return node;
}

/** A game's date, written the way the page's language writes dates. */
const day = (stamp) => (stamp ? date(stamp) : "");

// ------------------------------------------------------------- rating graphs
/** Round tick values covering [low, high]: about four steps of 10, 25, 50, 100... */
function ticks(low, high) {
  const step = [10, 25, 50, 100, 200, 250, 500].find((s) => (high - low) / s <= 5) || 1000;
  const values = [];
  for (let v = Math.floor(low / step) * step; v <= Math.ceil(high / step) * step; v += step) values.push(v);
  return values;
}

/** One pool's graph: rating after each rated game, in the order they were played. */
function drawGraph(figure, pool) {
  const width = Math.max(260, Math.round(figure.clientWidth || 600));
  const height = width < 480 ? 170 : 210;
  const left = 44, right = 14, top = 12, bottom = 26;
  const ratings = pool.points.map((p) => p.rating);
  const marks = ticks(Math.min(...ratings) - 10, Math.max(...ratings) + 10);
  const low = marks[0], high = marks[marks.length - 1];
  const n = pool.points.length;
  const x = (i) => left + (n === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (n - 1));
  const y = (r) => top + ((high - r) * (height - top - bottom)) / (high - low);
  const graph = svg("svg", { class: "rating-graph", viewBox: `0 0 ${width} ${height}`, width, height,
    role: "img", "aria-label": tn("{pool}: rating history, {n} rated game", "{pool}: rating history, {n} rated games",
      n, { pool: titled(pool.title) }) });
  for (const value of marks) {
    graph.append(svg("line", { class: "grid", x1: left, x2: width - right, y1: y(value), y2: y(value) }),
      svg("text", { class: "axis y", x: left - 6, y: y(value) + 4, "text-anchor": "end" }, String(value)));
  }
  // Dates of the first, middle and last games (each date once).
  const shown = new Set();
  for (const i of new Set([0, Math.floor((n - 1) / 2), n - 1])) {
    const text = day(pool.points[i].at);
    if (shown.has(text)) continue;
    shown.add(text);
    const anchor = n === 1 ? "middle" : i === 0 ? "start" : i === n - 1 ? "end" : "middle";
    graph.append(svg("text", { class: "axis x", x: x(i), y: height - 8, "text-anchor": anchor }, text));
  }
  if (n > 1) {
    graph.append(svg("polyline", { class: "line",
      points: pool.points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ") }));
  }
  const readout = figure.querySelector(".readout");
  const show = (point, index) => {
    readout.textContent = t("{rating} ±{deviation} after rated game {game} · {date}", { rating: Math.round(point.rating),
      deviation: Math.round(point.deviation), game: point.games, date: day(point.at) });
    graph.querySelectorAll(".dot.on").forEach((dot) => dot.classList.remove("on"));
    graph.querySelector(`.dot[data-index="${index}"]`).classList.add("on");
  };
  pool.points.forEach((point, index) => {
    const title = t("{rating} on {date} (rated game {game})",
      { rating: Math.round(point.rating), date: day(point.at), game: point.games });
    const dot = svg("circle", { class: "dot", cx: x(index), cy: y(point.rating), r: n > 60 ? 2.5 : 4,
      tabindex: 0, "data-index": index, "data-rating": point.rating, "data-at": point.at },
    svg("title", {}, title));
    for (const kind of ["mouseenter", "focus", "click"]) dot.addEventListener(kind, () => show(point, index));
    graph.append(dot);
  });
  figure.querySelector(".graph").replaceChildren(graph);
  show(pool.points[n - 1], n - 1);
}

function renderHistory(history) {
  const box = $("history-graphs");
  const figures = history.pools.filter((pool) => pool.points.length).map((pool) => {
    const figure = el("figure", { class: "history", "data-pool": pool.pool },
      el("figcaption", {}, el("strong", { text: titled(pool.title) }),
        el("span", { class: "readout", "aria-live": "polite" })),
      el("div", { class: "graph" }));
    figure.pool = pool;
    return figure;
  });
  box.replaceChildren(...figures);
  $("history-card").hidden = !figures.length;
  const redraw = () => figures.forEach((figure) => drawGraph(figure, figure.pool));
  redraw();
  let width = box.clientWidth;
  new ResizeObserver(() => {
    if (Math.abs(box.clientWidth - width) > 8) { width = box.clientWidth; redraw(); }
  }).observe(box);
}

// ---------------------------------------------------------------- statistics
const percent = (part, whole) => (whole
  ? number(Math.round((100 * part) / whole) / 100, { style: "percent" }) : "–");

function statRow(label, counts, kind) {
  const bar = el("span", { class: "wdl", title: t("{wins} won, {draws} drawn, {losses} lost",
    { wins: counts.wins, draws: counts.draws, losses: counts.losses }) });
  for (const [part, name] of [[counts.wins, "w"], [counts.draws, "d"], [counts.losses, "l"]]) {
    const piece = el("i", { class: name });
    piece.style.width = counts.games ? `${(100 * part) / counts.games}%` : "0";
    bar.append(piece);
  }
  return el("tr", { "data-row": kind },
    el("th", { scope: "row", text: label }),
    el("td", { text: String(counts.games) }),
    el("td", { class: "w", text: String(counts.wins) }),
    el("td", { class: "d", text: String(counts.draws) }),
    el("td", { class: "l", text: String(counts.losses) }),
    el("td", { class: "pct", text: percent(counts.wins, counts.games) }),
    el("td", { class: "bar" }, bar));
}

function statTable(entry) {
  const rows = [statRow(t("All games"), entry.all, "all")];
  if (entry.rated.games) rows.push(statRow(t("Rated"), entry.rated, "rated"));
  for (const color of entry.by_color) {
    rows.push(statRow(t("Playing {color}", { color: t(cap(color.color)) }), color, `color-${color.color}`));
  }
  // Seats differ from colours only where a swap happened: show them then.
  const same = entry.by_seat.every((seat) => {
    const color = entry.by_color.find((c) => c.color === seat.color);
    return color && color.games === seat.games && color.wins === seat.wins && color.draws === seat.draws;
  });
  if (!same) {
    for (const seat of entry.by_seat) {
      const color = seat.color ? t(cap(seat.color)) : null;
      let label;
      if (seat.seat === 0) label = color ? t("First player ({color} at the start)", { color }) : t("First player");
      else label = color ? t("Second player ({color} at the start)", { color }) : t("Second player");
      rows.push(statRow(label, seat, `seat-${seat.seat}`));
    }
  }
  if (entry.by_variant.length > 1) {
    for (const variant of entry.by_variant) rows.push(statRow(titled(variant.title), variant, `pool-${variant.pool}`));
  }
  // Column heads, each with its one-letter short form (G, W, D, L) for narrow screens.
  const heads = [[t("Games"), t("G")], [t("Won"), t("W")], [t("Drawn"), t("D")], [t("Lost"), t("L")],
    [t("Won %"), "%"]];
  return el("table", { class: "table stats", "data-game": entry.game },
    el("caption", { text: t(entry.title) }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "" }),
      ...heads.map(([long, short]) =>
        el("th", { scope: "col", title: long }, el("span", { class: "long", text: long }),
          el("span", { class: "short", "aria-hidden": "true", text: short }))),
      el("th", { scope: "col", class: "bar", text: "" }))),
    el("tbody", {}, ...rows));
}

function renderStats(stats) {
  const box = $("stats");
  if (!stats.games.length) {
    box.replaceChildren(el("p", { class: "hint", text: t("No finished game with a result yet.") }));
  } else {
    box.replaceChildren(...stats.games.map(statTable));
  }
  const met = $("opponents");
  met.replaceChildren(...stats.opponents.map((o) => el("li", {},
    el("button", { type: "button", class: "chip", "data-opponent": o.name,
      title: t("Search the games against {name}", { name: o.name }), onclick: () => { $("search-opponent").value = o.name; search(1); } },
    el("strong", { text: o.name }), ` ${o.games} · +${o.wins} =${o.draws} −${o.losses}`))));
  $("opponents-block").hidden = !stats.opponents.length;
  fillVariants(stats);
  if (!stats.complete) $("stats-note").textContent = t("Older games are still being counted: reload to see them all.");
}

// ------------------------------------------------------------------ search
function fillVariants(stats) {
  const select = $("search-variant");
  const keep = select.value;
  const options = [el("option", { value: "", text: t("Any game") })];
  for (const entry of stats.games) {
    options.push(el("option", { value: `game:${entry.game}`, text: t(entry.title) }));
    if (entry.by_variant.length > 1 || (entry.by_variant[0] && entry.by_variant[0].pool !== entry.game)) {
      for (const variant of entry.by_variant) {
        options.push(el("option", { value: `pool:${variant.pool}`, text: `· ${titled(variant.title)}` }));
      }
    }
  }
  select.replaceChildren(...options);
  select.value = [...select.options].some((o) => o.value === keep) ? keep : "";
}

const RESULT_WORDS = { win: t("Won"), loss: t("Lost"), draw: t("Draw"), none: t("No result") };

function resultRow(game) {
  const opponent = game.opponent.player
    ? el("a", { href: `/player/${encodeURIComponent(game.opponent.name)}`, text: game.opponent.name })
    : el("span", { text: game.opponent.name_text ?? game.opponent.name });
  const variant = game.variant !== game.title ? game.variant : null;
  const details = [game.rated ? t("rated") : t("casual"), variant,
    t("as {color}", { color: t(cap(game.color)) }), game.reason_text ?? game.reason]
    .filter(Boolean).join(" · ");
  return el("li", { class: `game-row over result-${game.result}`, "data-id": game.id, "data-result": game.result },
    el("span", { class: `badge badge-${game.game}`, text: t(game.title) }),
    el("span", { class: "what" },
      el("strong", {}, el("span", { class: `outcome ${game.result}`, text: RESULT_WORDS[game.result] || cap(game.result) }), " " + t("vs") + " ", opponent),
      el("small", { text: details })),
    el("span", { class: "when", text: day(game.ended_at) }),
    el("span", { class: "go" }, el("a", { class: "button small ghost", href: `/replay/${game.id}`, text: t("Replay") })));
}

function params(page) {
  const form = $("search-form");
  const query = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
  const text = (name) => form.elements[name].value.trim();
  if (text("opponent")) query.set("opponent", text("opponent"));
  if (text("result")) query.set("result", text("result"));
  if (text("since")) query.set("since", text("since"));
  if (text("until")) query.set("until", text("until"));
  const variant = text("variant");
  if (variant) query.set(variant.startsWith("pool:") ? "pool" : "game", variant.slice(5));
  if (form.elements.rated.checked) query.set("rated", "true");
  return query;
}

let asked = 0;  // the latest search: an older answer arriving late is dropped

async function search(page = 1) {
  const mine = ++asked;
  const status = $("search-status");
  status.textContent = t("Searching…"); status.dataset.kind = "hint";
  try {
    const found = await api(`/api/players/${encodeURIComponent(wanted)}/games?${params(page)}`);
    if (mine !== asked) return;
    $("search-results").replaceChildren(...(found.games.length ? found.games.map(resultRow)
      : [el("li", { class: "empty", text: t("No finished game matches.") })]));
    status.textContent = found.complete ? tn("{n} game", "{n} games", found.total)
      : tn("{n} game so far (older games are still being counted)",
        "{n} games so far (older games are still being counted)", found.total);
    status.dataset.kind = "ok";
    renderPager(found);
  } catch (error) {
    if (mine !== asked) return;
    status.textContent = error.message; status.dataset.kind = "error";
  }
}

function renderPager(found) {
  const pager = $("search-pager");
  pager.hidden = found.pages <= 1;
  pager.replaceChildren(
    el("button", { type: "button", class: "small", "data-page": "prev", disabled: found.page <= 1,
      onclick: () => search(found.page - 1), text: "‹ " + t("Newer") }),
    el("span", { class: "hint",
      text: t("Page {page} of {pages}", { page: found.page, pages: Math.max(found.pages, 1) }) }),
    el("button", { type: "button", class: "small", "data-page": "next", disabled: found.page >= found.pages,
      onclick: () => search(found.page + 1), text: t("Older") + " ›" }));
}

$("search-form").addEventListener("submit", (event) => { event.preventDefault(); search(1); });
$("search-form").addEventListener("reset", () => setTimeout(() => search(1), 0));
for (const name of ["result", "variant", "rated"]) {
  $("search-form").elements[name].addEventListener("change", () => search(1));
}

async function load() {
  $("export-link").href = `/api/players/${encodeURIComponent(wanted)}/export`;
  const [history, stats] = await Promise.all([
    api(`/api/players/${encodeURIComponent(wanted)}/history`),
    api(`/api/players/${encodeURIComponent(wanted)}/stats`)]);
  renderHistory(history);
  renderStats(stats);
  $("export-link").setAttribute("download", `hexgames-${history.name}.zip`);
  await search(1);
}

load().catch((error) => { $("search-status").textContent = error.message; });
