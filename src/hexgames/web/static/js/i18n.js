// The site's words in the visitor's language. The server sets globalThis.HEXGAMES_I18N
// (from /i18n/<lang>.js, loaded before any module): the messages found in the scripts,
// translated, with how many plural forms the language has. English is the source: a
// message missing from the catalog is shown as written.
//
//   t("Your turn")                            -> "당신의 차례"
//   t("{name} resigned", { name })            -> placeholders as in Python's str.format
//   tn("{n} game", "{n} games", count)        -> the plural form for count ({n} = count)

const catalog = globalThis.HEXGAMES_I18N || { language: "en", plurals: ["one", "other"], messages: {} };

/** The language the page is shown in ("en", "ko", "pt"). */
export const language = catalog.language;

const pluralRules = new Intl.PluralRules(language);

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

/** ``message`` (English) in the page's language, with ``{placeholders}`` filled in. */
export function t(message, params = {}) {
  const found = catalog.messages[message];
  return fill(typeof found === "string" ? found : message, params);
}

/** A name the server sent in English (a game's title, or a rating pool's such as
 * "Dendria (board_side=9)") in the page's language: looked up whole, else its first word
 * (the game's name) with the rest kept as it is. */
export function titled(text) {
  if (typeof text !== "string") return String(text ?? "");
  if (typeof catalog.messages[text] === "string") return t(text);
  const found = /^(\S+)( \(.*\))$/.exec(text);
  if (found && typeof catalog.messages[found[1]] === "string") return t(found[1]) + found[2];
  return text;
}

/** The form of ``one``/``other`` for ``count``: the catalog's forms are in the order of
 * the language's CLDR plural categories (``plurals``), which Intl.PluralRules picks from. */
export function tn(one, other, count, params = {}) {
  const forms = catalog.messages[one];
  let text;
  if (Array.isArray(forms) && forms.length) {
    const index = catalog.plurals.indexOf(pluralRules.select(count));
    text = forms[index < 0 || index >= forms.length ? forms.length - 1 : index];
  } else {
    text = count === 1 ? one : other;
  }
  return fill(text, { n: count, ...params });
}

/** A phrase the server sent as data (``{t, p?, n?}``: template, values, and for a plural
 * ``[plural template, count]``; nested phrases alike) in the page's language. */
export function phrase(data) {
  if (!data || typeof data !== "object") return String(data ?? "");
  const params = {};
  for (const [key, value] of Object.entries(data.p || {})) {
    params[key] = typeof value === "object" ? phrase(value) : value;
  }
  return Array.isArray(data.n) ? tn(data.t, data.n[0], data.n[1], params) : t(data.t, params);
}

/** Boards drawn by the engine say the position in English (``aria-label``, ``<title>``)
 * and carry it as ``data-title-phrase``: put it in the page's language, in ``root`` or
 * on ``root`` itself. */
export function localizeBoards(root = document) {
  if (language === "en" || !root) return;
  const boards = root.matches && root.matches("svg[data-title-phrase]") ? [root]
    : root.querySelectorAll ? root.querySelectorAll("svg[data-title-phrase]") : [];
  for (const svg of boards) {
    let text;
    try { text = phrase(JSON.parse(svg.getAttribute("data-title-phrase"))); } catch { continue; }
    svg.setAttribute("aria-label", text);
    const title = [...svg.children].find((child) => child.localName === "title");
    if (title) title.textContent = text;
  }
}

/** A number written the way the language writes it. */
export function number(value, options = {}) {
  return new Intl.NumberFormat(language, options).format(value);
}

/** A date (and time) written the way the language writes it. */
export function date(value, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(language, options).format(value instanceof Date ? value : new Date(value));
}

// The switch in the top bar: choosing a language reloads the page with ?lang=, which the
// server remembers in a cookie (the address keeps its other parameters).
function wireSwitch() {
  const select = document.getElementById("language-switch");
  if (!select || select.dataset.wired) return;
  select.dataset.wired = "1";
  select.addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("lang", select.value);
    location.assign(url.href);
  });
}

function ready() {
  wireSwitch();
  localizeBoards();  // boards in the page as served (the rules pages' diagrams)
}

if (typeof document !== "undefined") {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
}
