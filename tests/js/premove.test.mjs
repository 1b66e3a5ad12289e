// Unit tests of the premove queue (src/hexgames/web/static/js/premove.js), run by
// tests/test_web_premove.py with Node's built-in test runner. The DOM part (the bar) is
// covered by the browser tests; here: queuing, cancelling, learning, and the match
// against the legal actions when the turn arrives.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Premove, premoveAllowed } from "../../src/hexgames/web/static/js/premove.js";

const entry = (action, points, label = "move", tool = null) => ({
  action, tool, points, paths: [points], label,
});
// A board: men on e3 and f4, the rest empty.
const occupied = (point) => point === "e3" || point === "f4";

test("premoves are for a seat of a real-time online game being played", () => {
  const base = { mode: "online", role: "player", is_over: false, control: { kind: "realtime" } };
  assert.equal(premoveAllowed(base), true);
  assert.equal(premoveAllowed({ ...base, control: { kind: "correspondence" } }), false);
  assert.equal(premoveAllowed({ ...base, control: null }), false);
  assert.equal(premoveAllowed({ ...base, role: "spectator" }), false);
  assert.equal(premoveAllowed({ ...base, is_over: true }), false);
  assert.equal(premoveAllowed({ ...base, mode: "ai" }), false);
  assert.equal(premoveAllowed(null), false);
});

test("clicks queue one action; the turn sends it when it is legal then", () => {
  const premove = new Premove();
  assert.equal(premove.click("e3", occupied), "queued");
  assert.equal(premove.click("e4", occupied), "queued");
  assert.deepEqual(premove.points, ["e3", "e4"]);
  assert.equal(premove.describe(), "e3 → e4");
  const outcome = premove.resolve([entry("e3e5", ["e3", "e5"]), entry("e3e4", ["e3", "e4"])]);
  assert.equal(outcome.kind, "send");
  assert.equal(outcome.entry.action, "e3e4");
  assert.equal(premove.queued, false);  // used up
  assert.equal(premove.resolve([entry("e3e4", ["e3", "e4"])]), null);
});

test("a premove no longer legal is dropped with a note", () => {
  const premove = new Premove();
  premove.click("e3", occupied);
  premove.click("e4", occupied);
  const outcome = premove.resolve([entry("f4f5", ["f4", "f5"])]);
  assert.equal(outcome.kind, "drop");
  assert.match(outcome.message, /premove e3 → e4 dropped/);
  assert.equal(premove.queued, false);
});

test("clicks that complete several actions are offered, not guessed", () => {
  const premove = new Premove();
  premove.click("e3", occupied);
  premove.click("e4", occupied);
  const outcome = premove.resolve([entry("e3e4", ["e3", "e4"]),
    entry("e3-1-e4", ["e3", "e4"], "split 1")]);
  assert.equal(outcome.kind, "choose");
  assert.deepEqual(outcome.entries.map((e) => e.action), ["e3e4", "e3-1-e4"]);
  assert.deepEqual(outcome.clicks, ["e3", "e4"]);
});

test("a click on a queued point, or on an empty point after a whole premove, cancels", () => {
  const premove = new Premove();
  premove.click("e3", occupied);
  assert.equal(premove.click("e3", occupied), "cancelled");
  assert.equal(premove.queued, false);
  premove.click("e3", occupied);
  premove.click("e4", occupied);
  assert.equal(premove.click("d5", occupied), "cancelled");  // empty: cancels
  premove.click("e3", occupied);
  premove.click("e4", occupied);
  assert.equal(premove.click("f4", occupied), "queued");  // a piece: a new premove
  assert.deepEqual(premove.points, ["f4"]);
  assert.equal(premove.cancel(), true);
  assert.equal(premove.cancel(), false);
});

test("how many clicks an action takes is learned from the player's own turns", () => {
  const premove = new Premove();
  // One-click actions on empty points (a plant), two from a piece (a dendrid's leg).
  premove.learn("g", [entry("d5", ["d5"], "plant"), entry("e3-e6", ["e3", "e6"]),
    entry("end", [], "End turn")], occupied);
  premove.click("d5", occupied);
  assert.equal(premove.click("d6", occupied), "cancelled");  // d5 was a whole plant
  premove.click("d6", occupied);
  assert.deepEqual(premove.points, ["d6"]);
  premove.cancel();
  premove.click("e3", occupied);
  premove.click("e6", occupied);
  assert.deepEqual(premove.points, ["e3", "e6"]);
  // Tools seen in the player's turns are offered; a tool's clicks match its actions only.
  premove.learn("g", [entry("@d5", ["d5"], "drop", "drop")], occupied);
  assert.deepEqual(premove.tools(), ["", "drop"]);
  premove.selectTool("drop");
  premove.click("d5", occupied);
  assert.equal(premove.describe(), "drop d5");
  const outcome = premove.resolve([entry("d5", ["d5"], "plant"),
    entry("@d5", ["d5"], "drop", "drop")]);
  assert.equal(outcome.entry.action, "@d5");
});

test("a premove of another game is forgotten", () => {
  const premove = new Premove();
  premove.use("one");
  premove.click("e3", occupied);
  premove.use("one");
  assert.equal(premove.queued, true);
  premove.use("two");
  assert.equal(premove.queued, false);
});
