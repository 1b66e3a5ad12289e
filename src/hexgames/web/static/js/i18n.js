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

if (typeof document !== "undefined") {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wireSwitch);
  else wireSwitch();
}
