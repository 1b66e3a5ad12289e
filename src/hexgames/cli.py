"""The ``hexgames`` command: one entry point, one subcommand per tool.

Each subcommand lives in its own module, which provides ``add_arguments(parser)`` and
``run(args) -> int``; modules are imported only when their subcommand runs, so
``hexgames --help`` stays fast and a missing optional dependency only affects its tool.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "play": ("hexgames.terminal", "play a game in the terminal (against the AI or hot-seat)"),
    "serve": ("hexgames.web.cli", "start the web app and print its URL"),
    "arena": ("hexgames.arena.tournament.cli", "run a tournament between AI players"),
    "report": ("hexgames.arena.report.cli", "write a designer's balance report for a game"),
    "sweep": (
        "hexgames.arena.sweep.cli",
        "balance study of every variant of a grid of rules options (designer report)",
    ),
    "bench": ("hexgames.bench", "measure engine speed"),
    "loadtest": (
        "hexgames.web.loadtest",
        "play many online games against a running server and measure it",
    ),
    "train": (
        "hexgames.training.cli",
        "train a policy-value net by self-play (the train extra: torch)",
    ),
    "moderate": (
        "hexgames.web.chat.moderate",
        "list reported chat messages, close reports and silence players in chat",
    ),
    "versus": (
        "hexgames.integrations.versus",
        "our MCTS player against OpenSpiel's MCTS bot at equal time per action",
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hexgames",
        description="Benediction and Dendria: rules engines, AI, arena and web app.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.set_defaults(_module=module_name)
        # Arguments are added lazily: only for the subcommand actually used.
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0] not in SUBCOMMANDS:
        args = parser.parse_args(argv)  # prints help / errors for unknown commands
        parser.print_help()
        return 0 if not argv else 2
    name = argv[0]
    module_name, help_text = SUBCOMMANDS[name]
    module = importlib.import_module(module_name)
    sub_parser = argparse.ArgumentParser(prog=f"hexgames {name}", description=help_text)
    module.add_arguments(sub_parser)
    args = sub_parser.parse_args(argv[1:])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
