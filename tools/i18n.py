"""Keep the site's translations whole (gettext catalogs read with Babel).

    python tools/i18n.py update [--language ko]   # extract every message; merge into the .po files
    python tools/i18n.py check                    # list what a language lacks (exit 1 if anything)
    python tools/i18n.py todo ko > ko-todo.json   # the untranslated messages, as JSON
    python tools/i18n.py fill ko ko-done.json     # put translations (same JSON shape) in ko.po

After ``update``, translate the empty ``msgstr`` entries of ``src/hexgames/i18n/*.po``
(and any marked ``#, fuzzy``: the English changed). ``tests/test_i18n.py`` fails on a
missing, stale or placeholder-broken translation in any language.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hexgames.i18n import DEFAULT_LANGUAGE, LANGUAGES
from hexgames.i18n.catalogs import extract, fill, gaps, todo, update


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("command", choices=("update", "check", "todo", "fill"))
    parser.add_argument("arguments", nargs="*", help="todo: LANGUAGE; fill: LANGUAGE FILE.json")
    parser.add_argument("--language", action="append", choices=sorted(LANGUAGES),
                        help="update only this language's catalog (repeatable)")
    parser.add_argument("--limit", type=int, default=40, help="gaps listed per language")
    args = parser.parse_args(argv)
    if args.command == "update":
        for path in update(args.language):
            print(f"wrote {path}")
        return 0
    if args.command == "todo":
        (language,) = args.arguments or parser.error("todo needs a LANGUAGE")
        print(json.dumps(todo(language), ensure_ascii=False, indent=1))
        return 0
    if args.command == "fill":
        if len(args.arguments) != 2:
            parser.error("fill needs LANGUAGE FILE.json")
        language, file = args.arguments
        count = fill(language, json.loads(Path(file).read_text(encoding="utf-8")))
        print(f"{language}: {count} messages set")
        return 0
    template = extract()
    total = 0
    for language in LANGUAGES:
        if language == DEFAULT_LANGUAGE:
            continue
        found = list(gaps(language, template))
        total += len(found)
        print(f"{language}: {len(template)} messages, {len(found)} to translate")
        for gap in found[: args.limit]:
            print(f"  {gap}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
