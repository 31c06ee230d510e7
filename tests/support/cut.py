"""Prose around a construct, laid out so that a text's first cut into pieces (at its middle's
next line end: ``elision.redact.scan._halve``) falls at a chosen char of the construct: a
construct whose lines a piece's edge cuts apart is read as the pieces read it."""

from __future__ import annotations

_WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while",
          "reading", "the", "logs")


def prose_filler(size: int, seed: int) -> str:
    """Prose lines of varied lengths, ``size`` chars in all (a line break last, where there
    is room for one): no trigger, no credential."""
    lines: list[str] = []
    held = i = 0
    while held < size:
        line = " ".join(_WORDS[(seed + i * 7 + j) % len(_WORDS)] for j in range(2 + (i + seed) % 9))
        lines.append(f"{line} {i}\n")
        held += len(lines[-1])
        i += 1
    text = "".join(lines)[:size]
    return text[:-1] + "\n" if text else text


def cut_inside(construct: str, before: int, inside: int, seed: int) -> str:
    """``construct`` between prose, the text's middle at its char ``inside`` (modulo its
    length and one), ``before`` more chars of prose ahead of it: the halves past the first
    cut are cut away from it."""
    size = len(construct)
    at = inside % (size + 1)
    lead = 2 * size + 600 + before
    text = prose_filler(lead, seed) + construct + prose_filler(lead + 2 * at - size, seed + 1)
    assert len(text) // 2 == lead + at
    return text
