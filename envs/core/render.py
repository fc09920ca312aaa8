"""What every game's renderer shares (no kernel here: left out of the cache digest, package_cache.py):
ANSI colouring of terminal text, Pillow fonts and colour mixing for the RGB frames."""
from __future__ import annotations

CSI = "\x1b["
RESET = "\x1b[0m"
_FONT_CACHE: dict = {}


def sgr(text: str, code: str, on: bool) -> str:
    """``text`` in the ANSI style ``code`` (SGR parameters, e.g. "1;31") when ``on``."""
    return f"{CSI}{code}m{text}{RESET}" if on and code else text


def font(size: int, bold: bool = False):
    """A TrueType font of ``size`` pixels (DejaVu or Arial), else Pillow's default; cached."""
    key = (int(size), bold)
    if key not in _FONT_CACHE:
        from PIL import ImageFont
        found = None
        for name in (("DejaVuSans-Bold.ttf", "Arial Bold.ttf", "arialbd.ttf") if bold
                     else ("DejaVuSans.ttf", "Arial.ttf", "arial.ttf")):
            try:
                found = ImageFont.truetype(name, int(size))
                break
            except OSError:
                continue
        if found is None:
            try:
                found = ImageFont.load_default(int(size))
            except TypeError:  # Pillow < 10.1
                found = ImageFont.load_default()
        _FONT_CACHE[key] = found
    return _FONT_CACHE[key]


def mix(a, b, t: float) -> tuple:
    """The colour ``t`` of the way from ``a`` to ``b`` (RGB tuples of ints)."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b))
