// The board: the server's SVG, scaled to its box, with the possible clicks lit up.
// Every board SVG has one hit target per point (`.hit[data-point]`, topmost); the
// renderer's own stylesheet styles the classes `highlighted` and `selected` on them, so
// the front end only toggles classes and never needs to know what a point looks like.
// What a click would do (the gesture labels the server sent) can be written on the
// targets: a small tag on the board, and a tooltip.

import { mountSvg } from "./common.js";

const SVG_NS = "http://www.w3.org/2000/svg";

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
    if (onHover) {
      container.addEventListener("pointerover", (event) => {
        const target = event.target.closest(".hit[data-point]");
        onHover(target ? target.getAttribute("data-point") : null);
      });
      container.addEventListener("pointerleave", () => onHover(null));
    }
  }

  show(svgText) {
    this.svg = mountSvg(this.container, svgText);
    this.hits.clear();
    if (!this.svg) return;
    let targets = this.svg.querySelectorAll(".hit[data-point]");
    if (!targets.length) targets = this.svg.querySelectorAll("[data-point]");
    for (const node of targets) this.hits.set(node.getAttribute("data-point"), node);
  }

  /** Light up `targets` (next possible clicks), mark `selected` (clicks so far), and
   * write `labels` (point -> what clicking it would do) on the board when `tags`. */
  mark({ targets = new Set(), selected = [], interactive = false, labels = new Map(),
    tags = false } = {}) {
    if (!this.svg) return;
    this.svg.classList.toggle("interactive", interactive);
    this.svg.classList.toggle("passive", !interactive);
    const chosen = new Set(selected);
    this.svg.classList.toggle("many", interactive && targets.size > Math.max(12, this.hits.size / 4));
    this.labels = labels;
    for (const [point, node] of this.hits) {
      const lit = interactive && targets.has(point);
      node.classList.toggle("highlighted", lit);
      node.classList.toggle("selected", chosen.has(point));
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
    for (const point of targets) {
      const node = this.hits.get(point);
      const label = labels.get(point);
      if (!node || !label) continue;
      const box = node.getBBox();
      const size = Math.max(8, box.width * 0.2);
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
