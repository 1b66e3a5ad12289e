// Unit tests of the scripts' translation helpers (src/hexgames/web/static/js/i18n.js),
// run by tests/test_i18n.py with Node's built-in test runner, with a small Korean
// catalog in place of the one the server sets (issue 39, row 18: game names).
import assert from "node:assert/strict";
import { test } from "node:test";

globalThis.HEXGAMES_I18N = {
  language: "ko",
  plurals: ["other"],
  messages: { Dendria: "덴드리아", Benediction: "베네딕션", "{game} rules": "{game} 규칙" },
};
const { t, titled } = await import("../../src/hexgames/web/static/js/i18n.js");

test("a game's name is translated whole", () => {
  assert.equal(titled("Dendria"), "덴드리아");
  assert.equal(t("{game} rules", { game: titled("Benediction") }), "베네딕션 규칙");
});

test("a rating pool's title keeps its options after the translated name", () => {
  assert.equal(titled("Dendria (board_side=9)"), "덴드리아 (board_side=9)");
  assert.equal(titled("Benediction (board_side=5, max_stack=3)"),
    "베네딕션 (board_side=5, max_stack=3)");
});

test("anything else is left as it is", () => {
  assert.equal(titled("Hex (size=11)"), "Hex (size=11)");
  assert.equal(titled("Dendria-like"), "Dendria-like");
  assert.equal(titled(null), "");
});
