// The board: the server's SVG, scaled to its box, with the possible clicks lit up.
// Every board SVG has one hit target per point (`.hit[data-point]`, topmost); the
// renderer's own stylesheet styles the classes `highlighted` and `selected` on them, so
// the front end only toggles classes and never needs to know what a point looks like.

import { mountSvg } from "./common.js";

export class Board {
  constructor(container, { onPoint } = {}) {
    this.container = container;
    this.svg = null;
    this.hits = new Map();
    container.addEventListener("click", (event) => {
      const target = event.target.closest("[data-point]");
      if (target && onPoint) onPoint(target.getAttribute("data-point"), event);
    });
  }

  show(svgText) {
    this.svg = mountSvg(this.container, svgText);
    this.hits.clear();
    if (!this.svg) return;
    let targets = this.svg.querySelectorAll(".hit[data-point]");
    if (!targets.length) targets = this.svg.querySelectorAll("[data-point]");
    for (const node of targets) this.hits.set(node.getAttribute("data-point"), node);
  }

  /** Light up `targets` (next possible clicks) and mark `selected` (clicks so far). */
  mark({ targets = new Set(), selected = [], interactive = false } = {}) {
    if (!this.svg) return;
    this.svg.classList.toggle("interactive", interactive);
    this.svg.classList.toggle("passive", !interactive);
    const chosen = new Set(selected);
    this.svg.classList.toggle("many", interactive && targets.size > Math.max(12, this.hits.size / 4));
    for (const [label, node] of this.hits) {
      node.classList.toggle("highlighted", interactive && targets.has(label));
      node.classList.toggle("selected", chosen.has(label));
    }
  }
}
