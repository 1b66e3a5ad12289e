// The analysis board: step through a game or a set-up position, try other actions (a
// tree of variations), and see the engine's view: an eval bar, its best line as arrows,
// candidate actions, and the evaluation graph of the main line with mistakes marked.
// No game rules here: boards, legal actions (with their gestures) and evaluations come
// from the server; the tree holds actions in notation only.

import { api } from "./api.js";
import { Board } from "./board.js";
import { cap, el } from "./common.js";
import { t, tn } from "./i18n.js";
import { DEFAULT_TOOL, Picker, shownLabel } from "./input.js";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

const params = new URLSearchParams(location.search);
const parts = location.pathname.split("/").filter(Boolean);
const gameId = parts.length > 1 ? decodeURIComponent(parts[1]) : null;

let source = null;        // {game, options, start}
let nextId = 1;
const root = { id: 0, action: null, parent: null, children: [], color: null };
const nodes = new Map([[0, root]]);
let current = root;
let view = null;          // the position response of the current node
let picker = null;
let flip = false;
let engineOn = params.get("engine") !== "off";
let searchToken = 0;
let engineIdle = Promise.resolve(null);  // the search in flight (one at a time)
let engineAbort = null;   // abandons the search in flight when the reader moves on
const positions = new Map();  // path key -> position response
const evaluations = new Map(); // path key -> best evaluation so far
let graph = null;          // {values: [], seats: [], actions: [], drop}
let toastTimer = null;

const board = new Board($("board"), { onPoint: clickPoint });

function toast(message, kind = "error") {
  const node = $("toast");
  node.textContent = message;
  node.className = `toast show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.className = "toast"; }, 4200);
}

// ------------------------------------------------------------------- the tree
function pathOf(node) {
  const actions = [];
  for (let n = node; n && n.parent; n = n.parent) actions.unshift(n.action);
  return actions;
}

const keyOf = (node) => pathOf(node).join("\u0001");

function addChild(parent, action, color) {
  const found = parent.children.find((child) => child.action === action);
  if (found) return found;
  const node = { id: nextId++, action, parent, children: [], color };
  parent.children.push(node);
  nodes.set(node.id, node);
  return node;
}

function depthOf(node) { let d = 0; for (let n = node; n.parent; n = n.parent) d++; return d; }

/** Whether ``node``'s action opens a turn: as the server said (``turnStart``), else a
 * change of colour, else (not known yet) yes. */
function startsTurn(node) {
  if (typeof node.turnStart === "boolean") return node.turnStart;
  if (node.parent === root || !node.color || !node.parent.color) return true;
  return node.color !== node.parent.color;
}

/** The number of the turn ``node``'s action belongs to, counted as the game page's move
 * list counts them (one number a turn, however many actions it has); 0 at the start. */
function turnOf(node) {
  let turns = 0;
  for (let n = node; n && n.parent; n = n.parent) if (startsTurn(n)) turns++;
  return turns;
}

/** Keep what a position response says of the actions on the path to ``node``. */
function learnPath(node, history) {
  let n = node;
  for (let i = history.length - 1; i >= 0 && n && n.parent; i--, n = n.parent) {
    n.color = history[i].color;
    n.turnStart = history[i].turn_start;
  }
}

function mainLine() {
  const line = [];
  for (let n = root; n.children.length; n = n.children[0]) line.push(n.children[0]);
  return line;
}

function onMainLine(node) {
  for (let n = node; n.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
  return true;
}

function renderTree() {
  const container = $("tree");
  // Numbered by turn, as the game page's move list: "12. e3f3 +d4 end"; a variation
  // that opens inside a turn says its number with an ellipsis ("12… +d5").
  const move = (node, opens = false) => el("button", {
    class: `tree-move${node === current ? " current" : ""}${graphMistake(node) ? " mistake" : ""}`,
    type: "button", "data-node": node.id, "data-ply": depthOf(node), "data-turn": turnOf(node),
    title: graphMistake(node) || null,
    onclick: () => go(node),
  }, el("span", { class: `dot swatch swatch-${node.color || "none"}` }),
  startsTurn(node) ? `${turnOf(node)}. ${node.action}`
    : opens ? `${turnOf(node)}… ${node.action}` : node.action);
  const line = (first) => {
    const items = [move(first, true)];
    let n = first;
    while (n.children.length) {
      const [main, ...alternatives] = n.children;
      items.push(move(main));
      for (const alternative of alternatives) {
        items.push(el("span", { class: "variation" }, "(", ...line(alternative), ")"));
      }
      n = main;
    }
    return items;
  };
  const items = [];
  if (root.children.length) {
    const [main, ...alternatives] = root.children;
    items.push(...line(main).slice(0, 1));
    for (const alternative of alternatives) {
      items.push(el("span", { class: "variation" }, "(", ...line(alternative), ")"));
    }
    items.push(...line(main).slice(1));
  }
  container.replaceChildren(el("button", {
    class: `tree-move start${current === root ? " current" : ""}`, type: "button",
    "data-node": 0, "data-ply": 0, onclick: () => go(root), text: t("Start") }), ...items);
  // Scroll the tree's own box only (never the page: on a phone the tree is below the board).
  const shown = container.querySelector(".current");
  if (shown && container.scrollHeight > container.clientHeight) {
    const top = shown.offsetTop;  // the tree is the offset parent (position: relative)
    if (top < container.scrollTop || top > container.scrollTop + container.clientHeight - 30) {
      container.scrollTop = Math.max(0, top - container.clientHeight / 2);
    }
  }
}

// ------------------------------------------------------------------ positions
async function positionOf(node) {
  const key = `${keyOf(node)}|${flip}`;
  if (!positions.has(key)) {
    positions.set(key, api("/api/analysis/position", { method: "POST", body: {
      ...source, actions: pathOf(node), flip } }).catch((error) => {
      positions.delete(key);
      throw error;
    }));
  }
  return positions.get(key);
}

async function go(node) {
  current = node;
  renderTree();
  updateStepper();
  let data;
  try {
    data = await positionOf(node);
  } catch (error) { toast(error.message); return; }
  if (current !== node) return;
  view = data;
  // The colours of the actions along the path (the move tree's dots) and their turns.
  learnPath(node, data.history);
  board.show(data.svg);
  $("board").dataset.ply = String(data.ply);
  $("board").dataset.flipped = String(flip);
  picker = new Picker(data.legal);
  $("choices").replaceChildren();
  renderStatus();
  renderTree();
  refreshInput();
  $("to-editor").href = `/editor?game=${encodeURIComponent(source.game)}&text=${encodeURIComponent(data.text)}`;
  history.replaceState(null, "", urlFor(node));
  if (graph) drawGraph();
  analyse(node);
}

function urlFor(node) {
  const query = new URLSearchParams(location.search);
  query.set("ply", String(depthOf(node)));
  return `${location.pathname}?${query}`;
}

function renderStatus() {
  const parts = [];
  const text = view.is_over ? (view.result ? cap(view.result_text ?? view.result) : t("Game over"))
    : t("{color} to act", { color: t(cap(view.to_move)) });
  parts.push(el("span", { class: "headline", text }));
  if (!view.is_over && view.actions_left !== null && view.actions_left !== undefined) {
    parts.push(el("span", { class: "sub", text: tn("{n} action left this turn",
      "{n} actions left this turn", view.actions_left) }));
  }
  const depth = depthOf(current);
  parts.push(el("span", { class: "sub", text: current === root ? t("Start position")
    : onMainLine(current) ? tn("After {n} action", "After {n} actions", depth)
      : tn("After {n} action (a variation)", "After {n} actions (a variation)", depth) }));
  $("status").replaceChildren(...parts);
}

function updateStepper() {
  $("counter").textContent = String(turnOf(current));  // turns, as the game page counts
  $("counter").title = tn("{n} action", "{n} actions", depthOf(current));
  $("first").disabled = $("prev").disabled = current === root;
  $("next").disabled = $("last").disabled = !current.children.length;
}

// ------------------------------------------------------------------ the engine
async function analyse(node) {
  const token = ++searchToken;
  stopSearch();
  const key = keyOf(node);
  const known = evaluations.get(key);
  showEvaluation(known || null);
  if (!engineOn || !view || view.is_over) {
    if (view && view.is_over) showEvaluation(null);
    return;
  }
  let depth = known ? known.next_depth : 0;
  while (depth !== null && depth !== undefined && token === searchToken && engineOn) {
    // One search at a time from this page. Moving on abandons the one in flight: the
    // server drops it if it is still waiting for the engine; one already running ends
    // within seconds and counts against this client's share meanwhile (429: retried).
    await engineIdle;
    if (token !== searchToken || !engineOn) return;
    let found;
    engineAbort = new AbortController();
    const request = api("/api/analysis/evaluate", { method: "POST", signal: engineAbort.signal,
      body: { ...source, actions: pathOf(node), depth } });
    engineIdle = request.then(() => null, () => null);
    try {
      found = await request;
    } catch (error) {
      if (token !== searchToken) return;
      if (/at most \d+ analyses/.test(error.english || "")) {  // our own earlier request: retry
        await new Promise((resolve) => setTimeout(resolve, 400));
        continue;
      }
      $("engine-depth").textContent = error.message;
      return;
    }
    evaluations.set(key, found);
    if (token !== searchToken) return;
    showEvaluation(found);
    depth = found.next_depth;
  }
}

/** Abandon the search in flight (the reader moved to another position or turned the
 * engine off). */
function stopSearch() {
  if (engineAbort) engineAbort.abort();
  engineAbort = null;
}

function showEvaluation(found) {
  const bar = $("eval-bar");
  if (!found) {
    $("eval-fill").style.height = "50%";
    $("eval-text").textContent = view && view.is_over ? t("over") : (engineOn ? "…" : t("off"));
    bar.dataset.win = "";
    delete bar.dataset.depth;
    $("engine-win").textContent = !engineOn ? t("Engine off") : view && view.is_over
      ? (view.result ? cap(view.result_text ?? view.result) : t("Game over")) : t("thinking…");
    $("engine-depth").textContent = "";
    $("engine-line").replaceChildren();
    $("engine-best").replaceChildren();
    drawArrows([]);
    return;
  }
  const percent = Math.round(found.win * 100);
  bar.dataset.win = String(found.win);
  bar.dataset.color = found.color;
  bar.dataset.depth = String(found.depth);
  $("eval-fill").className = `eval-fill swatch-${found.color}`;
  $("eval-fill").style.height = `${percent}%`;
  $("eval-text").textContent = `${percent}%`;
  const color = t(cap(found.color));
  bar.setAttribute("aria-label", t("{color} to act: {percent}% to win", { color, percent }));
  $("engine-win").textContent = found.proven
    ? t("{color} to act: {percent}% (proven)", { color, percent })
    : t("{color} to act: {percent}%", { color, percent });
  $("engine-depth").textContent = tn("depth {depth}/{depths} · {n} iteration",
    "depth {depth}/{depths} · {n} iterations", found.iterations,
    { depth: found.depth + 1, depths: found.depths });
  $("engine-line").replaceChildren(el("span", { class: "hint", text: t("Best line:") + " " }),
    ...found.pv.map((step, i) => el("button", {
      class: "pv-step", type: "button",
      title: t("{color}: play the line up to here", { color: t(cap(step.color)) }),
      onclick: () => playLine(found.pv.slice(0, i + 1)),
    }, el("span", { class: `dot swatch swatch-${step.color}` }), step.action)));
  $("engine-best").replaceChildren(...found.best.map((candidate) => el("li", {},
    el("button", { class: "pv-step", type: "button", onclick: () => playLine([candidate]),
      text: candidate.action }),
    el("span", { class: "hint", text: " " + tn("{percent}% · {n} visit", "{percent}% · {n} visits",
      candidate.visits, { percent: Math.round(candidate.win * 100) }) }))));
  drawArrows(found.pv.slice(0, 4));
}

function playLine(steps) {
  let node = current;
  for (const step of steps) node = addChild(node, step.action, step.color || null);
  go(node);
}

/** The best line as arrows between the centres of the points its actions click. */
function drawArrows(steps) {
  const svg = board.svg;
  if (!svg) return;
  svg.querySelector("g.engine-arrows")?.remove();
  if (!steps.length) return;
  const layer = document.createElementNS(SVG_NS, "g");
  layer.setAttribute("class", "engine-arrows");
  layer.setAttribute("pointer-events", "none");
  const centre = (point) => {
    const node = board.hits.get(point);
    if (!node) return null;
    const box = node.getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2, box.width];
  };
  const defs = document.createElementNS(SVG_NS, "defs");
  defs.innerHTML = '<marker id="engine-head" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="engine-head"/></marker>';
  layer.append(defs);
  steps.forEach((step, index) => {
    const points = step.points.map(centre).filter(Boolean);
    if (!points.length) return;
    const width = points[0][2] * 0.16;
    const group = document.createElementNS(SVG_NS, "g");
    group.setAttribute("class", `engine-arrow step-${index}`);
    group.setAttribute("data-action", step.action);
    if (points.length === 1) {
      const ring = document.createElementNS(SVG_NS, "circle");
      ring.setAttribute("cx", points[0][0]);
      ring.setAttribute("cy", points[0][1]);
      ring.setAttribute("r", points[0][2] * 0.42);
      ring.setAttribute("stroke-width", width);
      group.append(ring);
    } else {
      const line = document.createElementNS(SVG_NS, "polyline");
      line.setAttribute("points", points.map(([x, y]) => `${x},${y}`).join(" "));
      line.setAttribute("stroke-width", width);
      line.setAttribute("marker-end", "url(#engine-head)");
      group.append(line);
    }
    const label = document.createElementNS(SVG_NS, "text");
    label.setAttribute("x", points[0][0]);
    label.setAttribute("y", points[0][1]);
    label.setAttribute("font-size", points[0][2] * 0.34);
    label.setAttribute("text-anchor", "middle");
    label.setAttribute("dominant-baseline", "central");
    label.textContent = String(index + 1);
    group.append(label);
    layer.append(group);
  });
  svg.append(layer);
}

// ------------------------------------------------------------- the graph
async function loadGraph() {
  const line = mainLine();
  const actions = line.map((node) => node.action);
  if (!actions.length) return;
  $("graph-box").hidden = false;
  let seats;
  try {
    const end = await api("/api/analysis/position", { method: "POST", body: { ...source, actions } });
    seats = end.history.map((ply) => ply.seat);
    learnPath(line[line.length - 1], end.history);
  } catch (error) { $("graph-note").textContent = error.message; return; }
  graph = { values: [], seats, actions, drop: 0.2, seat0: null, nodes: [root, ...line] };
  drawGraph();
  let first = 0;
  while (first <= actions.length) {
    let slice;
    try {
      slice = await api("/api/analysis/graph", { method: "POST", body: {
        ...source, actions, first, count: 40 } });
    } catch (error) {
      if (/at most \d+ analyses/.test(error.english || "")) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      $("graph-note").textContent = error.message;
      return;
    }
    graph.values.push(...slice.values);
    graph.drop = slice.mistake_drop;
    graph.seat0 = slice.seat0;
    first += slice.values.length;
    drawGraph();
    renderTree();
  }
}

/** The mover's drop in win probability at `node`, when over the threshold: a mistake. */
function graphMistake(node) {
  if (!graph || !node.parent) return null;
  const ply = graph.nodes.indexOf(node);
  if (ply < 1 || ply >= graph.values.length) return null;
  const before = graph.values[ply - 1], after = graph.values[ply];
  const drop = graph.seats[ply - 1] === 0 ? before - after : after - before;
  if (drop <= graph.drop) return null;
  return tn("mistake: the mover's chance fell by {n} point",
    "mistake: the mover's chance fell by {n} points", Math.round(drop * 100));
}

function drawGraph() {
  const width = 300, height = 110;
  const total = graph.actions.length;
  const x = (ply) => (total ? (ply / total) * width : 0);
  const y = (value) => height - value * height;
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "graph-svg");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", graph.seat0
    ? t("Win probability of {color} after each action", { color: t(cap(graph.seat0)) })
    : t("Win probability of the first player after each action"));
  const mid = document.createElementNS(SVG_NS, "line");
  Object.entries({ x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "graph-mid" })
    .forEach(([k, v]) => mid.setAttribute(k, v));
  svg.append(mid);
  if (graph.values.length) {
    const area = document.createElementNS(SVG_NS, "polygon");
    const points = graph.values.map((v, i) => `${x(i)},${y(v)}`);
    area.setAttribute("points", `0,${height} ${points.join(" ")} ${x(graph.values.length - 1)},${height}`);
    area.setAttribute("class", `graph-area swatch-${graph.seat0}`);
    svg.append(area);
    const line = document.createElementNS(SVG_NS, "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("class", "graph-line");
    svg.append(line);
  }
  let mistakes = 0;
  graph.nodes.forEach((node, ply) => {
    const why = graphMistake(node);
    if (!why) return;
    mistakes++;
    const dot = document.createElementNS(SVG_NS, "circle");
    Object.entries({ cx: x(ply), cy: y(graph.values[ply]), r: 4, class: "graph-mistake",
      "data-ply": ply }).forEach(([k, v]) => dot.setAttribute(k, v));
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = `${turnOf(node)}. ${node.action}: ${why}`;
    dot.append(title);
    svg.append(dot);
  });
  const marker = document.createElementNS(SVG_NS, "line");
  const at = graph.nodes.indexOf(current);
  if (at >= 0) {
    Object.entries({ x1: x(at), x2: x(at), y1: 0, y2: height, class: "graph-now" })
      .forEach(([k, v]) => marker.setAttribute(k, v));
    svg.append(marker);
  }
  svg.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    const ply = Math.round(((event.clientX - box.left) / box.width) * total);
    const node = graph.nodes[Math.max(0, Math.min(total, ply))];
    if (node) go(node);
  });
  $("graph").replaceChildren(svg);
  const done = graph.values.length > total;
  const note = { color: t(cap(graph.seat0 || "")), drop: Math.round(graph.drop * 100) };
  $("graph-note").textContent = done
    ? tn("{color} win probability after each action; {n} mistake (a drop of more than {drop} points for the mover) in red.",
      "{color} win probability after each action; {n} mistakes (a drop of more than {drop} points for the mover) in red.",
      mistakes, note)
    : tn("{color} (evaluating…) win probability after each action; {n} mistake (a drop of more than {drop} points for the mover) in red.",
      "{color} (evaluating…) win probability after each action; {n} mistakes (a drop of more than {drop} points for the mover) in red.",
      mistakes, note);
  $("graph-box").dataset.done = String(done);
  $("graph-box").dataset.mistakes = String(mistakes);
}

// --------------------------------------------------------------------- input
function refreshInput() {
  const tools = $("tools"), buttons = $("buttons");
  if (!picker || !view || view.is_over) {
    tools.replaceChildren(); buttons.replaceChildren();
    board.mark({ interactive: false });
    return;
  }
  const toolList = picker.tools();
  tools.replaceChildren(...(toolList.length > 1 ? toolList.map((tool) => el("button", {
    class: `tool${tool === picker.tool ? " selected" : ""}`, "data-tool": tool || "default",
    text: tool === DEFAULT_TOOL ? t("Move") : t(cap(tool)),
    onclick: () => { picker.selectTool(tool); $("choices").replaceChildren(); refreshInput(); },
  })) : []));
  buttons.replaceChildren(...picker.buttons().map((entry) => el("button", {
    class: "action-button", "data-action": entry.action, text: cap(shownLabel(entry)),
    onclick: () => tryAction(entry.action),
  })));
  const targets = picker.targets();
  const labels = picker.nextLabels();
  board.mark({ interactive: true, targets, selected: picker.clicks, labels,
    tags: picker.clicks.length > 0 });
  const found = evaluations.get(keyOf(current));
  if (found && engineOn) drawArrows(found.pv.slice(0, 4));
}

function clickPoint(point) {
  if (!picker || !view || view.is_over) return;
  const result = picker.click(point);
  $("choices").replaceChildren();
  if (result.kind === "send") tryAction(result.entry.action);
  else if (result.kind === "choose") {
    $("choices").replaceChildren(el("span", { class: "choose", text: t("Which one?") }),
      ...result.entries.map((entry) => el("button", {
        class: "choice", "data-action": entry.action, onclick: () => tryAction(entry.action),
      }, el("strong", { text: cap(shownLabel(entry)) }), el("small", { text: entry.action }))));
  } else if (result.kind === "error") toast(result.message);
  refreshInput();
}

function tryAction(action) {
  picker.reset();
  $("choices").replaceChildren();
  const child = addChild(current, action, view.to_move);
  if (typeof child.turnStart !== "boolean") child.turnStart = view.turn_start;
  go(child);
}

// ------------------------------------------------------------------ controls
$("first").addEventListener("click", () => go(root));
$("prev").addEventListener("click", () => current.parent && go(current.parent));
$("next").addEventListener("click", () => current.children.length && go(current.children[0]));
$("last").addEventListener("click", () => {
  let n = current;
  while (n.children.length) n = n.children[0];
  go(n);
});
$("flip").addEventListener("click", () => {
  flip = !flip;
  $("flip").setAttribute("aria-pressed", String(flip));
  go(current);
});
$("engine-toggle").addEventListener("click", () => {
  engineOn = !engineOn;
  $("engine-toggle").setAttribute("aria-pressed", String(engineOn));
  $("engine-toggle").textContent = engineOn ? t("⚙ Engine on") : t("⚙ Engine off");
  if (engineOn) analyse(current); else { searchToken++; stopSearch(); showEvaluation(null); }
});
$("delete-line").addEventListener("click", () => {
  if (!current.parent) return;
  const parent = current.parent;
  parent.children = parent.children.filter((child) => child !== current);
  go(parent);
});
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea")) return;
  const keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  if (event.key in keys) { event.preventDefault(); $(keys[event.key]).click(); }
  if (event.key === "f" || event.key === "F") $("flip").click();
  if (event.key === "e" || event.key === "E") $("engine-toggle").click();
  if (event.key === "Escape" && picker) { picker.reset(); $("choices").replaceChildren(); refreshInput(); }
});

async function init() {
  let actions = [];
  let turnStarts = null;  // which of a stored game's actions open a turn
  try {
    if (gameId) {
      const stored = await api(`/api/analysis/source/${encodeURIComponent(gameId)}`);
      source = { game: stored.game, options: stored.options, start: stored.start };
      actions = stored.actions;
      turnStarts = Array.isArray(stored.turn_starts) ? stored.turn_starts : null;
      $("back").hidden = false;
      $("back").href = `/play/${encodeURIComponent(gameId)}`;
    } else {
      let options = {};
      try { options = JSON.parse(params.get("options") || "{}"); } catch { options = {}; }
      source = { game: params.get("game") || "benediction", options,
        start: params.get("start") || null };
      actions = (params.get("actions") || "").split(/\s+/).filter(Boolean);
    }
  } catch (error) {
    $("board").replaceChildren(el("div", { class: "missing" },
      el("h2", { text: t("Nothing to analyse") }), el("p", { text: error.message }),
      el("a", { class: "button primary", href: "/", text: t("Home") })));
    return;
  }
  document.title = t("Analysis · {game} · hexgames", { game: t(cap(source.game)) });
  let node = root;
  actions.forEach((action, i) => {
    node = addChild(node, action, null);
    if (turnStarts) node.turnStart = Boolean(turnStarts[i]);
  });
  const ply = Number(params.get("ply"));
  let start = node;
  if (params.has("ply") && Number.isFinite(ply)) {
    start = root;
    for (let i = 0; i < ply && start.children.length; i++) start = start.children[0];
  }
  await go(start);
  loadGraph();
}

init();
