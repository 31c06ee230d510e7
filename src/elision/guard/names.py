"""Tool names as the Guardian's allow and deny lists read them: normalized (issue 22).

``--deny-tool shell`` matched ``shell`` exactly, so ``Shell``, ``shell`` in fullwidth letters,
``shell`` with a zero-width space, ``shell`` with a Cyrillic ``e`` (U+0435) and ``srv__shell`` all
went through. A name and a pattern are now compared by their *skeleton*:

1. NFKC (fullwidth and compatibility forms fold: U+FF53 -> ``s``, the ligature U+FB01 -> ``fi``);
2. invisible characters removed: every format character (Unicode category Cf: U+200B,
   U+200D, U+FEFF, U+00AD, the bidi controls…), variation selectors, the combining grapheme
   joiner and the Hangul fillers;
3. the Cyrillic and Greek letters that look like Latin ones but that NFKC keeps apart mapped
   to them (:data:`LOOK_ALIKES`, a small skeleton map in the spirit of Unicode TR39's
   confusables, only letters a tool name could be spelled with), before and after
4. case folding (``Shell`` -> ``shell``; ``ß`` -> ``ss``).

A name is tried bare, qualified by its server (``srv/shell``), and with any ``<server>__`` or
``<server>/`` prefix taken off, so a pattern for ``shell`` matches ``srv__shell`` and
``srv/shell``, and ``srv/shell`` matches ``srv__shell``. ``__`` in a name or a pattern reads as
``/``.

A deny list matches any of those forms. An allow list is for names the operator chose, so a
name allowed only by its skeleton, one that hides a format character or spells a letter with a
look-alike (a Cyrillic U+0435 in ``shell``), is not allowed: it is some other tool made to look like
an allowed one.
"""

from __future__ import annotations

import fnmatch
import unicodedata

#: Cyrillic and Greek letters (both cases) that NFKC leaves alone but that read as Latin ones,
#: by code point (the letters themselves would look like the Latin ones they stand for).
_LOOK_ALIKE_POINTS: dict[int, str] = {
    # Cyrillic
    0x0430: "a", 0x0432: "b", 0x0441: "c", 0x0501: "d", 0x0435: "e", 0x04BB: "h", 0x0456: "i",
    0x0458: "j", 0x043A: "k", 0x04CF: "l", 0x043C: "m", 0x043D: "h", 0x043E: "o", 0x0440: "p",
    0x051B: "q", 0x0455: "s", 0x0442: "t", 0x0443: "y", 0x051D: "w", 0x0445: "x", 0x044C: "b",
    0x0410: "a", 0x0412: "b", 0x0421: "c", 0x0415: "e", 0x041D: "h", 0x0406: "i", 0x0408: "j",
    0x041A: "k", 0x041C: "m", 0x041E: "o", 0x0420: "p", 0x0405: "s", 0x0422: "t", 0x0423: "y",
    0x0425: "x", 0x051A: "q", 0x051C: "w", 0x04C0: "l",
    # Greek
    0x03B1: "a", 0x03B2: "b", 0x03B5: "e", 0x03B7: "n", 0x03B9: "i", 0x03BA: "k", 0x03BD: "v",
    0x03BF: "o", 0x03C1: "p", 0x03C4: "t", 0x03C5: "u", 0x03C7: "x", 0x03F2: "c", 0x03F3: "j",
    0x0391: "a", 0x0392: "b", 0x0395: "e", 0x0396: "z", 0x0397: "h", 0x0399: "i", 0x039A: "k",
    0x039C: "m", 0x039D: "n", 0x039F: "o", 0x03A1: "p", 0x03A4: "t", 0x03A5: "y", 0x03A7: "x",
    0x03F9: "c",
    # Latin letters NFKC keeps apart (dotless i, small capitals)
    0x0261: "g", 0x0131: "i", 0x0237: "j", 0x029F: "l", 0x026A: "i",
}
LOOK_ALIKES: dict[str, str] = {chr(point): latin for point, latin in _LOOK_ALIKE_POINTS.items()}
_MAP = str.maketrans(LOOK_ALIKES)
#: Invisible characters outside category Cf: variation selectors, the combining grapheme
#: joiner, the Mongolian free variation selectors and the Hangul fillers.
_INVISIBLE = frozenset(
    [chr(c) for c in range(0xFE00, 0xFE10)] + ["\u034f", "\u180b", "\u180c", "\u180d",
                                               "\u115f", "\u1160", "\u3164", "\uffa0"]
)


def _visible(text: str) -> str:
    return "".join(c for c in text if c not in _INVISIBLE and unicodedata.category(c) != "Cf")


def skeleton(name: str) -> str:
    """What a name reads as: NFKC, invisible characters removed, look-alike letters mapped,
    case folded, ``__`` read as ``/``."""
    # Mapped first too: NFKC turns some look-alikes into other letters (U+03F2 into U+03C2).
    text = unicodedata.normalize("NFKC", name.translate(_MAP))
    text = _visible(text).translate(_MAP).casefold()
    text = unicodedata.normalize("NFKC", text).translate(_MAP)
    return text.replace("__", "/")


def forms(tool: str, server: str | None) -> set[str]:
    """Every form a pattern may match ``tool`` (called on ``server``) by, as skeletons: bare,
    ``server/tool``, and without any ``<server>`` prefix the name carries."""
    bare = skeleton(tool)
    out = {bare}
    if server:
        out.add(f"{skeleton(server)}/{bare}")
    if "/" in bare:
        out.add(bare.split("/", 1)[1])
    return out


def disguised(tool: str) -> bool:
    """Whether a name hides an invisible character, or mixes Latin letters with look-alikes
    of them (``shell`` with a Cyrillic U+0435): made to read as another name."""
    if _visible(tool) != tool:
        return True
    text = unicodedata.normalize("NFKC", tool)
    return any(c.isascii() and c.isalpha() for c in text) and any(c in LOOK_ALIKES for c in text)


def matches(patterns: tuple[str, ...], tool: str, server: str | None, *, allow: bool) -> bool:
    """Whether any of ``patterns`` (``*`` and ``?`` wildcards) matches the tool.

    For a deny list every skeleton form counts. For an allow list a disguised name
    (:func:`disguised`) matches nothing: a look-alike of an allowed name is not that name.
    """
    if allow and disguised(tool):
        return False
    names = forms(tool, server)
    return any(fnmatch.fnmatchcase(n, skeleton(p)) for n in names for p in patterns)
