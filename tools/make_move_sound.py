"""Write ``src/hexgames/web/static/move.wav``: the optional move sound of the game page.

A 70 ms, 660 Hz tone with a fast decay, 8 kHz 8-bit mono (604 bytes), made with the
standard library's ``wave`` module so the site ships its own sound and loads nothing.
"""

from __future__ import annotations

import argparse
import math
import wave
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "src/hexgames/web/static/move.wav"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=TARGET,
                        help=f"where to write the sound (default {TARGET})")
    args = parser.parse_args(argv)
    rate = 8000
    frames = bytearray()
    for i in range(int(rate * 0.07)):
        envelope = math.exp(-i / (rate * 0.015))
        value = int(128 + 100 * envelope * math.sin(2 * math.pi * 660 * i / rate))
        frames.append(max(0, min(255, value)))
    with wave.open(str(args.out), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(rate)
        out.writeframes(bytes(frames))


if __name__ == "__main__":
    main()
