// The board: the server's SVG, scaled to its box, with the possible clicks lit up.
// Every board SVG has one hit target per point (`.hit[data-point]`, topmost); the
// renderer's own stylesheet styles the classes `highlighted` and `selected` on them, so
// the front end only toggles classes and never needs to know what a point looks like.
// What a click would do (the gesture labels the server sent) can be written on the
// targets: a small tag on the board, and a tooltip.

import { mountSvg } from "./common.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const TAG_PX = 10;  // the smallest font of a destination tag on the screen (its pill: 14 px)

export class Board {
  constructor(container, { onPoint, onHover } = {}) {
    this.container = container;
    this.svg = null;
    this.hits = new Map();
    this.labels = new Map();
    container.addEventListener("click", (event) => {
      const target = event.target.closest("[data-point]");
      if (target && onPoint) onPoint(target.getAttribute("data-point"), event);
    });
    // Drag and drop (mouse or pen) as an alternative to two clicks: pressing on one point
    // and releasing on another is the same as clicking both. (On a touch screen a drag
    // scrolls the page, so there the two taps stay.)
    let pressed = null;
    const pointAt = (event) => {
      const node = document.elementFromPoint(event.clientX, event.clientY);
      const target = node && node.closest(".hit[data-point]");
      return target && this.container.contains(target) ? target.getAttribute("data-point") : null;
    };
    container.addEventListener("pointerdown", (event) => {
      pressed = event.pointerType === "touch" || event.button !== 0 ? null : pointAt(event);
    });
    container.addEventListener("pointerup", (event) => {
      const from = pressed;
      pressed = null;
      const to = from ? pointAt(event) : null;
      if (!from || !to || from === to || !onPoint) return;
      this.container.dataset.dragged = `${from}-${to}`;
      onPoint(from, event);
      onPoint(to, event);
    });
    if (onHover) {
      container.addEventListener("pointerover", (event) => {
        const target = event.target.closest(".hit[data-point]");
        onHover(target ? target.getAttribute("data-point") : null);
      });
      container.addEventListener("pointerleave", () => onHover(null));
    }
  }

  /** Show a drawing; with `animate`, a piece that moved glides from where it stood. */
  show(svgText, { animate = false } = {}) {
    const before = animate && this.svg ? this.pieces(this.svg) : null;
    const centres = before ? this.centres() : null;
    const viewBox = this.svg ? this.svg.getAttribute("viewBox") : null;
    this.svg = mountSvg(this.container, svgText);
    this.hits.clear();
    if (!this.svg) return;
    let targets = this.svg.querySelectorAll(".hit[data-point]");
    if (!targets.length) targets = this.svg.querySelectorAll("[data-point]");
    for (const node of targets) this.hits.set(node.getAttribute("data-point"), node);
    if (before && viewBox === this.svg.getAttribute("viewBox")) this.glide(before, centres);
  }

  /** Pieces on the board: point -> {node, key} (a piece is an element with a colour). */
  pieces(svg) {
    const found = new Map();
    for (const node of svg.querySelectorAll("[data-point][data-color]:not(.hit)")) {
      const key = `${node.dataset.color}/${node.dataset.kind || ""}`;
      found.set(node.getAttribute("data-point"), { node, key, size: node.dataset.size || "" });
    }
    return found;
  }

  centres() {
    const centres = new Map();
    for (const [point, node] of this.hits) {
      const box = node.getBBox();
      centres.set(point, [box.x + box.width / 2, box.y + box.height / 2]);
    }
    return centres;
  }

  /**
   * Game-agnostic move animation: when exactly one piece of a kind left a point and
   * exactly one of the same kind arrived at (or grew on) another, it glides there.
   */
  glide(before, centres) {
    const after = this.pieces(this.svg);
    const left = new Map(), arrived = new Map();
    for (const [point, piece] of before) {
      const now = after.get(point);
      if (!now || now.key !== piece.key) {
        if (!left.has(piece.key)) left.set(piece.key, []);
        left.get(piece.key).push(point);
      }
    }
    for (const [point, piece] of after) {
      const was = before.get(point);
      if (!was || was.key !== piece.key || was.size !== piece.size) {
        if (!arrived.has(piece.key)) arrived.set(piece.key, []);
        arrived.get(piece.key).push(point);
      }
    }
    if (matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    for (const [key, from] of left) {
      const to = arrived.get(key);
      if (from.length !== 1 || !to || to.length !== 1) continue;
      const start = centres.get(from[0]), end = centres.get(to[0]);
      const node = after.get(to[0]).node;
      if (!start || !end) continue;
      node.style.transition = "none";
      node.style.transform = `translate(${start[0] - end[0]}px, ${start[1] - end[1]}px)`;
      node.getBoundingClientRect();  // start from there
      requestAnimationFrame(() => {
        node.style.transition = "transform .28s ease-out";
        node.style.transform = "";
      });
      this.container.dataset.animated = `${from[0]}-${to[0]}`;
    }
  }

  /** Light up `targets` (next possible clicks), mark `selected` (clicks so far) and
   * `queued` (the points of a premove), and write `labels` (point -> what clicking it
   * would do) on the board when `tags`. */
  mark({ targets = new Set(), selected = [], interactive = false, labels = new Map(),
    tags = false, queued = [] } = {}) {
    if (!this.svg) return;
    this.svg.classList.toggle("interactive", interactive);
    this.svg.classList.toggle("passive", !interactive);
    this.svg.classList.toggle("premoving", queued.length > 0);
    const chosen = new Set(selected);
    const premove = new Set(queued);
    this.svg.classList.toggle("many", interactive && targets.size > Math.max(12, this.hits.size / 4));
    this.labels = labels;
    for (const [point, node] of this.hits) {
      const lit = interactive && targets.has(point);
      node.classList.toggle("highlighted", lit);
      node.classList.toggle("selected", chosen.has(point));
      node.classList.toggle("premove", premove.has(point));
      const label = lit ? labels.get(point) : null;
      if (label) node.setAttribute("data-label", label);
      else node.removeAttribute("data-label");
      let title = node.querySelector("title");
      if (label) {
        if (!title) { title = document.createElementNS(SVG_NS, "title"); node.append(title); }
        title.textContent = `${point}: ${label}`;
      } else if (title) title.remove();
    }
    this.svg.querySelector("g.target-tags")?.remove();
    if (!tags || !interactive) return;
    const layer = document.createElementNS(SVG_NS, "g");
    layer.setAttribute("class", "target-tags");
    layer.setAttribute("pointer-events", "none");
    // At least TAG_PX on the screen, however small the board is drawn (a phone shrinks a
    // board to a third: a fifth of a point's width would be a 7 px tag there).
    const matrix = this.svg.getScreenCTM();
    const perUnit = matrix ? Math.hypot(matrix.a, matrix.b) : 1;  // CSS px per SVG unit
    const least = perUnit > 0 ? TAG_PX / perUnit : 8;
    for (const point of targets) {
      const node = this.hits.get(point);
      const label = labels.get(point);
      if (!node || !label) continue;
      const box = node.getBBox();
      const size = Math.max(8, least, box.width * 0.2);
      const x = box.x + box.width / 2;
      const y = box.y + box.height * 0.84;
      const width = label.length * size * 0.62 + size * 0.8;
      const pill = document.createElementNS(SVG_NS, "rect");
      for (const [key, value] of Object.entries({ x: x - width / 2, y: y - size * 0.72,
        width, height: size * 1.4, rx: size * 0.7, class: "target-tag-bg" })) {
        pill.setAttribute(key, value);
      }
      const text = document.createElementNS(SVG_NS, "text");
      for (const [key, value] of Object.entries({ x, y, "font-size": size,
        "text-anchor": "middle", "dominant-baseline": "central", class: "target-tag",
        "data-tag": point })) {
        text.setAttribute(key, value);
      }
      text.textContent = label;
      layer.append(pill, text);
    }
    this.svg.append(layer);
  }
}
