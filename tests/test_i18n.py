"""Issue 32, item 2: the site in English, Korean and Portuguese.

The catalogs are whole (a message in the code that any language lacks, or whose
placeholders a translation lost, fails here), the rules guides keep their English
structure, the language is chosen as documented (``?lang=``, the cookie, then
``Accept-Language``), and a :class:`~hexgames.phrases.Phrase` is English to a library
user and translated for a visitor.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from gettext import c2py  # type: ignore[attr-defined]
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.plural import to_python
from fastapi.testclient import TestClient

from hexgames.errors import IllegalAction
from hexgames.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    MAX_ACCEPT_LANGUAGE,
    catalog_path,
    guide_path,
    negotiate,
    normalize,
    plural_categories,
    script_catalog,
    translator,
)
from hexgames.i18n.catalogs import extract, fields, gaps
from hexgames.phrases import N_, Phrase, nphrase

TRANSLATED = [language for language in LANGUAGES if language != DEFAULT_LANGUAGE]
SRC = Path(__file__).resolve().parents[1] / "src" / "hexgames"


@pytest.fixture(scope="module")
def template() -> Catalog:
    return extract()


# ------------------------------------------------------------------ the catalogs


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_in_every_language(language: str,
                                                       template: Catalog) -> None:
    missing = [str(gap) for gap in gaps(language, template)]
    assert not missing, (f"{len(missing)} messages lack a {language} translation "
                         "(python tools/i18n.py update, then translate):\n"
                         + "\n".join(missing[:40]))


def test_the_extraction_finds_every_kind_of_source(template: Catalog) -> None:
    """Scripts, templates, engine refusals, lessons and server words are all in the
    template (an extractor that silently found nothing would make the test above pass)."""
    places = {location for message in template for location, _ in message.locations}
    for part in ("web/static/js/", "web/templates/", "benediction/_refusal.py",
                 "dendria/_refusal.py", "benediction/lessons.py", "dendria/lessons.py",
                 "web/"):
        assert any(part in place for place in places), f"no message found in {part}"
    assert len(template) > 500


def test_a_gap_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           template: Catalog) -> None:
    """The completeness check fails on a missing message and on a lost placeholder."""
    message = next(m for m in template if m.id and isinstance(m.id, str) and fields(m.id))
    catalog = Catalog(locale="ko")
    catalog.add(message.id, "번역")  # the placeholders are gone
    path = tmp_path / "ko.po"
    from babel.messages.pofile import write_po

    with path.open("wb") as handle:
        write_po(handle, catalog)
    monkeypatch.setattr("hexgames.i18n.catalogs.catalog_path", lambda language: path)
    problems = {gap.problem.split(" ")[0] for gap in gaps("ko", template)}
    assert problems == {"missing", "placeholders"}


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_scripts_plural_categories_match_the_catalog(language: str) -> None:
    """static/js/i18n.js picks a form by the CLDR category Intl.PluralRules names; the
    catalog's ``Plural-Forms`` picks it by index. They agree for every count."""
    with catalog_path(language).open("rb") as handle:
        catalog = read_po(handle, locale=language)
    categories = plural_categories(language)
    assert len(categories) == catalog.num_plurals
    rule = Locale.parse(language).plural_form
    choose = to_python(rule)
    index_of = c2py(catalog.plural_expr)  # how gettext reads Plural-Forms
    for count in [*range(0, 120), 1000, 1000000, 2000000]:
        assert categories[index_of(count)] == choose(count), count


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_notation_and_symbols(language: str, template: Catalog) -> None:
    """A message that starts or ends with a symbol (an arrow, a dot, a bracket) keeps it,
    and a point name or action written in a message is written the same."""
    words = translator(language)
    notation = re.compile(r"\b[a-i][1-9]\b")
    for message in template:
        if not message.id or isinstance(message.id, tuple):
            continue
        translated = words.gettext(message.id)
        assert sorted(notation.findall(translated)) == sorted(notation.findall(message.id)), \
            (message.id, translated)
        for arrow in "←→↺":
            assert message.id.count(arrow) == translated.count(arrow), (message.id, translated)


# ------------------------------------------------------------------ the guides


def structure(markdown: str) -> tuple[list[str], list[str], list[str]]:
    """Heading levels, fenced blocks without their captions, and link targets."""
    headings = [line.split(" ", 1)[0] for line in markdown.splitlines()
                if re.match(r"#{1,6} ", line)]
    blocks = re.findall(r"```.*?\n(.*?)```", markdown, flags=re.S)
    bare = ["\n".join(line for line in block.splitlines()
                      if not line.strip().lower().startswith("caption:")) for block in blocks]
    links = re.findall(r"\]\(([^)]+)\)", markdown)
    return headings, bare, links


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("game", ["benediction", "dendria"])
def test_each_guide_is_translated_with_the_same_structure(game: str, language: str) -> None:
    english = SRC / game / "guide.md"
    translated = guide_path(english, language)
    assert translated != english, f"{game} has no {language} guide"
    text = translated.read_text(encoding="utf-8")
    assert structure(text) == structure(english.read_text(encoding="utf-8"))
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    if language == "ko":
        assert len(re.findall("[\uac00-\ud7a3]", prose)) > 500


DOCS = SRC.parents[1] / "docs"
#: The designers' own descriptions (shared rules, beside the checkout; read when present).
DESIGNERS = SRC.parents[2] / "shared" / "rules" / "designers"


def designer_words(language: str) -> list[tuple[str, str, str, str]]:
    """(game, English, the site's word, the designer's word) of the glossary's tables
    "The designer's own words" (a heading naming Dendria is Dendria's, else Benediction's)."""
    rows = []
    game = None
    for line in (DOCS / f"glossary-{language}.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            game = None
            if "designer's own words" in line:
                game = "dendria" if "Dendria" in line else "benediction"
        elif game and line.startswith("| ") and not line.startswith("| English"):
            english, site, designer = (cell.strip() for cell in line.strip("|").split("|"))
            rows.append((game, english, site, designer))
    return rows


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_guides_name_the_designers_words_once_beside_the_sites(language: str) -> None:
    """Issue 39, row 21: the designers' Korean and Portuguese texts use other words than
    the site's (machine translations). The site keeps its words; its glossary lists the
    designer's beside each, and each rules page names the designer's once (in italics),
    the site's word with it."""
    rows = designer_words(language)
    assert {game for game, *_ in rows} >= {"benediction"} and len(rows) >= 8
    for game, english, site, designer in rows:
        guide = " ".join(guide_path(SRC / game / "guide.md", language)
                         .read_text(encoding="utf-8").split())
        assert guide.count(f"*{designer}*") == 1, (game, english, designer)
        assert site.casefold() in guide.casefold(), (game, english, site)
        source = DESIGNERS / f"{game}.{language}.txt"
        if source.is_file():  # the glossary quotes the designer faithfully
            assert designer in source.read_text(encoding="utf-8"), (game, designer)


def test_portuguese_names_each_action_with_one_word() -> None:
    """Issue 39, row 21: Portuguese named an action with several words (Mover / Movimento,
    Colocar / Colocação, Bloquear / Bloqueio / Bloco). The tools, the board's labels and
    the engine's refusals now use the glossary's noun, as the guide's headings do."""
    pt = translator("pt")
    nouns = {"move": "movimento", "merge": "fusão", "drop": "colocação", "block": "bloco"}
    for action, noun in nouns.items():
        assert pt.gettext(action) == noun
    for tool in ("Move", "Drop", "Block"):
        assert pt.gettext(tool) == nouns[tool.lower()].capitalize()
    refusal = pt.gettext("{text} is not an action; write e3e4 (move), @e3 (drop), Bc2 "
                         "(block), f8+f7 (merge) or f4-1-f5 (split)")
    assert all(f"({noun})" in refusal for noun in nouns.values()), refusal
    guide = guide_path(SRC / "benediction" / "guide.md", "pt").read_text(encoding="utf-8")
    assert "**Colocação**" in guide and "**Bloco**" in guide and "## Fusão" in guide


# ------------------------------------------------------------------ choosing a language


@pytest.mark.parametrize(("header", "expected"), [
    (None, "en"),
    ("", "en"),
    ("ko-KR,ko;q=0.9,en-US;q=0.8", "ko"),
    ("pt-BR", "pt"),
    ("fr-FR,fr;q=0.9,pt;q=0.5,ko;q=0.4", "pt"),
    ("en;q=0.2,ko;q=0.9", "ko"),
    ("ko;q=0", "en"),
    ("ko;q=abc, pt", "pt"),
    ("de, fr", "en"),
    ("*", "en"),
    (";;;,,,q=", "en"),
    ("x" * 100_000 + ",ko", "en"),  # bounded: the tail of a huge header is not read
])
def test_accept_language(header: str | None, expected: str) -> None:
    assert negotiate(header) == expected


def test_normalize() -> None:
    assert normalize("pt_BR") == "pt" and normalize("KO") == "ko" and normalize("EN-gb") == "en"
    assert normalize("xx") is None and normalize(None) is None and normalize("") is None
    assert MAX_ACCEPT_LANGUAGE < 1000


# ------------------------------------------------------------------ phrases


def test_a_phrase_is_english_to_a_library_user() -> None:
    reason = Phrase("{point} holds a man of {color}", point="e4", color=Phrase(N_("Blue")))
    assert str(reason) == "e4 holds a man of Blue"
    error = IllegalAction("cannot merge {a} onto {b}: {why}", a="e3", b="e4", why=reason)
    assert str(error) == "cannot merge e3 onto e4: e4 holds a man of Blue"
    assert error.phrase.params["why"] is reason
    assert str(IllegalAction("a {brace} kept as written")) == "a {brace} kept as written"
    assert str(nphrase("{n} checker", "{n} checkers", 1)) == "1 checker"
    assert str(nphrase("{n} checker", "{n} checkers", 3)) == "3 checkers"


def in_memory_translator(pairs: dict[str, str | tuple[str, ...]]) -> Iterator[object]:
    import gettext

    catalog = Catalog(locale="ko")
    for msgid, msgstr in pairs.items():
        catalog.add(msgid if isinstance(msgstr, str) else (msgid, msgid + "s"), msgstr)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    yield gettext.GNUTranslations(buffer)


def test_a_phrase_is_translated_with_its_nested_words() -> None:
    (translations,) = in_memory_translator({
        "{point} holds a man of {color}": "{point}에는 {color}의 말이 있습니다",
        "Blue": "파랑",
        "broken {oops}": "깨짐 {wrong}",
    })
    render = lambda phrase: phrase.render(translations.gettext, translations.ngettext)  # noqa: E731
    reason = Phrase("{point} holds a man of {color}", point="e4", color=Phrase("Blue"))
    assert render(reason) == "e4에는 파랑의 말이 있습니다"
    # A translation that lost its placeholder falls back to English, never raises.
    assert render(Phrase("broken {oops}", oops="x")) == "broken x"
    # A message missing from the catalog stays English.
    assert render(Phrase("not in the catalog {x}", x=1)) == "not in the catalog 1"


def test_the_real_catalogs_translate() -> None:
    for language in TRANSLATED:
        words = translator(language)
        assert words.gettext("Play") != "Play"
        assert words.text(Phrase("Play")) == words.gettext("Play")
    assert translator("en").gettext("Play") == "Play"
    assert translator("xx").language == "en"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_script_catalog(language: str) -> None:
    catalog = script_catalog(language)
    assert catalog["language"] == language
    assert catalog["plurals"] == plural_categories(language)
    assert catalog["messages"]["Play"] == translator(language).gettext("Play")
    plural = [value for value in catalog["messages"].values() if isinstance(value, list)]
    assert all(len(forms) == len(catalog["plurals"]) for forms in plural)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_scripts_translate_game_names_in_titles() -> None:
    """Issue 39, row 18: the scripts show a game's name (and a rating pool's, such as
    "Dendria (board_side=9)") translated: tests/js/i18n.test.mjs under Node."""
    tests = Path(__file__).parent / "js" / "i18n.test.mjs"
    result = subprocess.run(["node", "--test", str(tests)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "# fail 0" in result.stdout and re.search(r"# pass 3\b", result.stdout)


def test_scripts_use_literal_messages() -> None:
    """t()/tn() take literal messages (the extractor reads literals only): a template
    literal or a variable as the message would never be translated."""
    found = []
    for script in sorted((SRC / "web" / "static" / "js").glob("*.js")):
        for number, line in enumerate(script.read_text().splitlines(), 1):
            if re.search(r"\btn?\(\s*`[^`]*\$\{", line):
                found.append(f"{script.name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


JS_MESSAGE = re.compile(r"""\btn?\(\s*((?:(["'])(?:\\.|(?!\2).)*\2\s*\+?\s*)+)""")
JS_PIECE = re.compile(r"""(["'])((?:\\.|(?!\1).)*)\1""")


def test_every_script_message_is_extracted(template: Catalog) -> None:
    """Babel's script extractor skips calls it cannot see (e.g. inside a template
    literal's ``${}``): every ``t("...")`` written in a script must be in the catalog."""
    extracted = {message.id[0] if isinstance(message.id, tuple) else message.id
                 for message in template if message.id}
    unseen = []
    for script in sorted((SRC / "web" / "static" / "js").glob("*.js")):
        if script.name == "i18n.js":  # defines t() and shows it in comments
            continue
        for found in JS_MESSAGE.finditer(script.read_text()):
            pieces = [piece.group(2) for piece in JS_PIECE.finditer(found.group(1))]
            text = "".join(pieces).encode().decode("unicode_escape").encode("latin-1").decode()
            if text not in extracted:
                unseen.append(f"{script.name}: {text!r}")
    assert not unseen, "not extracted (move the call out of the template literal):\n" + \
        "\n".join(unseen)


# ------------------------------------------------------------------ through the site


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    from hexgames.web.app import create_app

    with TestClient(create_app(tempfile.mkdtemp())) as test_client:
        yield test_client


def html_lang(text: str) -> str:
    found = re.search(r'<html lang="([^"]+)"', text)
    assert found, text[:200]
    return found.group(1)


PAGES = ["/", "/lobby", "/learn/benediction", "/puzzles/dendria", "/rules/benediction",
         "/analysis", "/editor", "/leaderboard"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_speaks_the_visitors_language(client: TestClient, path: str) -> None:
    client.cookies.clear()
    for language in TRANSLATED:
        answer = client.get(path, headers={"Accept-Language": f"{language},en;q=0.5"})
        assert answer.status_code == 200
        assert html_lang(answer.text) == language
        assert translator(language).gettext("Language") in answer.text
        assert f"/i18n/{language}.js?v=" in answer.text
        assert 'id="language-switch"' in answer.text
    english = client.get(path, headers={"Accept-Language": "de"})
    assert html_lang(english.text) == "en" and ">Language<" in english.text


def test_a_lang_link_is_remembered_over_accept_language(client: TestClient) -> None:
    client.cookies.clear()
    first = client.get("/?lang=pt", headers={"Accept-Language": "ko"})
    assert html_lang(first.text) == "pt"
    assert "hexgames_lang=pt" in first.headers["set-cookie"]
    later = client.get("/lobby", headers={"Accept-Language": "ko"})
    assert html_lang(later.text) == "pt"
    nonsense = client.get("/lobby?lang=<script>", headers={"Accept-Language": "ko"})
    assert html_lang(nonsense.text) == "pt" and "&lt;script" not in nonsense.text
    client.cookies.clear()


def test_the_script_catalog_route(client: TestClient) -> None:
    answer = client.get("/i18n/ko.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.text.startswith("globalThis.HEXGAMES_I18N = ")
    assert '"language": "ko"' in answer.text
    unknown = client.get("/i18n/xx.js")
    assert '"language": "en"' in unknown.text
    plain = client.get("/i18n/pt.js", headers={"Accept-Encoding": "identity"})
    packed = client.get("/i18n/pt.js", headers={"Accept-Encoding": "gzip, br"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.text == plain.text  # httpx decodes it
    assert int(packed.headers["content-length"]) < len(plain.content) / 2


def test_a_refusal_is_explained_in_the_visitors_language(client: TestClient) -> None:
    """``error`` stays English (API clients match it); ``message`` is what the page shows."""
    client.get("/")  # the visitor's identity
    created = client.post("/api/games", json={"game": "benediction", "mode": "hotseat"})
    assert created.status_code in (200, 201), created.text
    body = created.json()
    game_id = body.get("id") or body.get("game_id")
    token = body.get("token") or (body.get("tokens") or [None])[0]
    headers = {"Accept-Language": "ko"}
    refused = client.post(f"/api/games/{game_id}/actions",
                          json={"action": "e5e6", "token": token}, headers=headers)
    assert refused.status_code in (400, 409), refused.text
    answer = refused.json()
    assert answer["error"] and answer["message"]
    assert answer["message"] != answer["error"]
    assert re.search("[\uac00-\ud7a3]", answer["message"])
    english = client.post(f"/api/games/{game_id}/actions",
                          json={"action": "e5e6", "token": token}).json()
    assert english["message"] == english["error"] == answer["error"]


@pytest.mark.parametrize(("header", "expected"), [
    ("KO_kr", "ko"),  # any case, an underscore for the hyphen
    ("pt;q=0.5, ko;q=0.5", "pt"),  # equal weights: the header's order
    ("fr, ko-KR-u-ca-dangi;q=0.7", "ko"),  # the language of a longer tag
    ("ko;q=1.5, pt;q=0.1", "pt"),  # a weight out of range is ignored
    (" pt ; q=0.3 , en ; q=0.2 ", "pt"),
    (",".join(["de"] * 20) + ",ko", "en"),  # only the first 20 items are read
])
def test_accept_language_edges(header: str, expected: str) -> None:
    """Babel's negotiation keeps the hand-written one's answers at the edges."""
    assert negotiate(header) == expected
