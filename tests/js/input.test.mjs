// Unit tests of the game-agnostic click picker (src/hexgames/web/static/js/input.js),
// run by tests/test_web_picker.py with Node's built-in test runner.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Picker } from "../../src/hexgames/web/static/js/input.js";

const entry = (action, points, label, extra = {}) => ({
  action, tool: null, points, paths: [points], label, ...extra,
});

test("a two-click move is sent when its sequence completes", () => {
  const picker = new Picker([entry("e3e4", ["e3", "e4"], "move"), entry("e3e5", ["e3", "e5"], "move")]);
  assert.equal(picker.click("e3").kind, "more");
  assert.deepEqual([...picker.targets()].sort(), ["e4", "e5"]);
  const result = picker.click("e5");
  assert.equal(result.kind, "send");
  assert.equal(result.entry.action, "e3e5");
});

test("one click sequence completing several actions offers a choice", () => {
  const picker = new Picker([
    entry("f8+f7", ["f8", "f7"], "merge"),
    entry("f8-1-f7", ["f8", "f7"], "split 1"),
  ]);
  picker.click("f8");
  const result = picker.click("f7");
  assert.equal(result.kind, "choose");
  assert.deepEqual(result.entries.map((e) => e.label).sort(), ["merge", "split 1"]);
});

test("an action is entered through any of its alternative click paths", () => {
  const grow = entry("+c2", ["c2"], "grow", { paths: [["c2"], ["c3"], ["d3"]] });
  const picker = new Picker([grow, entry("^d3", ["d3"], "sprout")]);
  assert.deepEqual([...picker.targets()].sort(), ["c2", "c3", "d3"]);
  const viaOther = picker.click("c3");
  assert.equal(viaOther.kind, "send");
  assert.equal(viaOther.entry.action, "+c2");
  // d3 both sprouts itself and grows its seedbed: the player chooses.
  const both = picker.click("d3");
  assert.equal(both.kind, "choose");
  assert.deepEqual(both.entries.map((e) => e.action).sort(), ["+c2", "^d3"]);
});

test("entries without paths (older servers) fall back to their points", () => {
  const picker = new Picker([{ action: "e5", tool: null, points: ["e5"], label: "plant" }]);
  assert.equal(picker.click("e5").kind, "send");
});

test("a click that starts nothing explains itself and never switches tools", () => {
  const picker = new Picker([
    entry("e3e4", ["e3", "e4"], "move"),
    { action: "@d1", tool: "drop", points: ["d1"], paths: [["d1"]], label: "drop" },
  ]);
  const result = picker.click("d1");
  assert.equal(result.kind, "error");
  assert.match(result.message, /select the drop tool/);
  assert.equal(picker.tool, "");
});

test("labels of the next clicks say what each would do", async () => {
  const { Picker: P } = await import("../../src/hexgames/web/static/js/input.js");
  const picker = new P([
    entry("e3e4", ["e3", "e4"], "move"),
    entry("e3-1-e4", ["e3", "e4"], "split 1"),
    entry("e3-2-e4", ["e3", "e4"], "split 2"),
    entry("e3+e2", ["e3", "e2"], "merge"),
    entry("g7", ["g7"], "sprout"),
  ]);
  assert.deepEqual(Object.fromEntries(picker.nextLabels()), { e3: "…", g7: "sprout" });
  picker.click("e3");
  assert.deepEqual(Object.fromEntries(picker.nextLabels()),
    { e4: "move / split 1-2", e2: "merge" });
});

test("summarize ranges numbered labels and allowedNow names few points", async () => {
  const { summarize, allowedNow } = await import("../../src/hexgames/web/static/js/input.js");
  assert.equal(summarize(["split 1", "split 2", "split 3"]), "split 1-3");
  assert.equal(summarize(["move", "split 2", "split 4"]), "move / split 2,4");
  assert.deepEqual(allowedNow([
    entry("^g7", ["g7"], "sprout"),
    { action: "end", tool: null, points: [], paths: [], label: "End turn" },
  ]), ["sprout at g7", "end turn"]);
  const many = ["a1", "a2", "a3", "a4"].map((p) => entry(`${p}a9`, [p, "a9"], "move"));
  assert.deepEqual(allowedNow(many), ["move"]);
  assert.deepEqual(allowedNow(many.slice(0, 1)), ["move from a1"]);
});
