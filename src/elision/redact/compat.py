"""Full-width letters and invisible chars: a text read as a model reads it.

A model reads ``\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44=S`` (FULLWIDTH letters) as
``password=S``, ``ghp_aB3d`` U+200B ``E6\u2026`` (a ZERO WIDTH SPACE inside) as the GitHub token
without it, and a token whose body holds full-width digits as that token: no trigger or rule
here reads any of them, and each was shown whole. A text that holds such chars is searched and
judged as its folded copy (:func:`folded`): each compatibility form whose NFKC is ASCII
(full-width forms, ligatures, super- and subscripts, mathematical letters, ``\u212a`` and the
other :data:`~elision.redact.folding.FOLDS`) made that ASCII, and each default-ignorable code
point (Unicode's Default_Ignorable_Code_Point: zero-width chars, the soft hyphen, joiners,
variation selectors, bidi controls, tags) dropped. Each span found in the copy is mapped back
to the chars it came from (:class:`Folded`), so the stub covers the whole original spelling,
the invisible chars inside included.

Cyrillic and Greek letters drawn as Latin ones (:data:`LOOKALIKES`, ``p\u0430ssword``) and
combining marks (dropped: ``pa\u0301ssword``) are folded too, but only in a run beside a
name's ASCII char, or in a word wholly of look-alikes that spells a credential's name
(``\u0422\u041e\u041a\u0415\u041d``, the Russian word for a token: :func:`_whole_names`),
so Cyrillic and Greek prose is left as it is.

Only where it can matter: a run of such chars is folded where it holds a letter's or a digit's
form, or where a printable ASCII char (no space) is next to it, so CJK prose's full-width
punctuation and an emoji's variation selector or joiner are left as they are and cost one
regex search in C (:data:`_RUN`); an ASCII text is told by ``str.isascii``. The copy is made
a run at a time, and its offsets map back through a point a char whose fold is not one char
(an invisible one, an expansion such as the ``\ufb01`` ligature): the map is two arrays of
4 bytes a point, bounded by those chars, not by the text.

A text of ASCII and combining marks (NFD prose, an accent a word: a run a mark, each a regex
match and a step in Python, 69 ms a MB) is told and folded in a few passes in C over its
UTF-8 (:func:`_marks_only`: a byte translation, a few byte searches, the copy as its ASCII
bytes) where every run of its marks is beside a name's ASCII char (else a run at a time);
its map is counted only when a span asks for it. Other chars past ASCII beside the marks
(French as typeset: a curly apostrophe, guillemets, a no-break space) leave the marks to C
too (:func:`_marks_among`): each char of another run is found by one byte search and its run
folded as a run at a time. A JSON body of ASCII and marks is searched as its ASCII
(:func:`unmarked`: the fold drops every mark of it), each position mapped back.
"""

from __future__ import annotations

import io
import re
import unicodedata
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from functools import cache, partial
from itertools import accumulate

from elision.redact.folding import FOLDS
from elision.redact.rules import Span, make_span

#: Each range of chars whose NFKC is ASCII (and not the char), as Unicode 14 (Python 3.11)
#: has them; a test checks them against the running Python's ``unicodedata``.
COMPAT = (
    (0x00A0, 0x00A0), (0x00AA, 0x00AA), (0x00B2, 0x00B3), (0x00B9, 0x00BA), (0x0132, 0x0133),
    (0x017F, 0x017F), (0x01C7, 0x01CC), (0x01F1, 0x01F3), (0x02B0, 0x02B0), (0x02B2, 0x02B3),
    (0x02B7, 0x02B8), (0x02E1, 0x02E3), (0x037E, 0x037E), (0x1D2C, 0x1D2C), (0x1D2E, 0x1D2E),
    (0x1D30, 0x1D31), (0x1D33, 0x1D3A), (0x1D3C, 0x1D3C), (0x1D3E, 0x1D43), (0x1D47, 0x1D49),
    (0x1D4D, 0x1D4D), (0x1D4F, 0x1D50), (0x1D52, 0x1D52), (0x1D56, 0x1D58), (0x1D5B, 0x1D5B),
    (0x1D62, 0x1D65), (0x1D9C, 0x1D9C), (0x1DA0, 0x1DA0), (0x1DBB, 0x1DBB), (0x1FEF, 0x1FEF),
    (0x2000, 0x200A), (0x2024, 0x2026), (0x202F, 0x202F), (0x203C, 0x203C), (0x2047, 0x2049),
    (0x205F, 0x205F), (0x2070, 0x2071), (0x2074, 0x207A), (0x207C, 0x208A), (0x208C, 0x208E),
    (0x2090, 0x2093), (0x2095, 0x209C), (0x20A8, 0x20A8), (0x2100, 0x2102), (0x2105, 0x2106),
    (0x210A, 0x210E), (0x2110, 0x2113), (0x2115, 0x2116), (0x2119, 0x211D), (0x2120, 0x2122),
    (0x2124, 0x2124), (0x2128, 0x2128), (0x212A, 0x212A), (0x212C, 0x212D), (0x212F, 0x2131),
    (0x2133, 0x2134), (0x2139, 0x2139), (0x213B, 0x213B), (0x2145, 0x2149), (0x2160, 0x217F),
    (0x2460, 0x24EA), (0x2A74, 0x2A76), (0x2C7C, 0x2C7D), (0x3000, 0x3000), (0x3250, 0x325F),
    (0x32B1, 0x32BF), (0x32CC, 0x32CF), (0x3371, 0x337A), (0x3380, 0x3381), (0x3383, 0x338B),
    (0x338E, 0x3394), (0x3396, 0x339A), (0x339C, 0x33A6), (0x33A9, 0x33AD), (0x33B0, 0x33B1),
    (0x33B3, 0x33B5), (0x33B7, 0x33BB), (0x33BD, 0x33BF), (0x33C2, 0x33C5), (0x33C7, 0x33DD),
    (0x33FF, 0x33FF), (0xA7F2, 0xA7F4), (0xFB00, 0xFB06), (0xFB29, 0xFB29), (0xFE10, 0xFE10),
    (0xFE13, 0xFE16), (0xFE19, 0xFE19), (0xFE30, 0xFE30), (0xFE33, 0xFE38), (0xFE47, 0xFE48),
    (0xFE4D, 0xFE50), (0xFE52, 0xFE52), (0xFE54, 0xFE57), (0xFE59, 0xFE5C), (0xFE5F, 0xFE66),
    (0xFE68, 0xFE6B), (0xFF01, 0xFF5E), (0x107A5, 0x107A5), (0x1D400, 0x1D454),
    (0x1D456, 0x1D49C), (0x1D49E, 0x1D49F), (0x1D4A2, 0x1D4A2), (0x1D4A5, 0x1D4A6),
    (0x1D4A9, 0x1D4AC), (0x1D4AE, 0x1D4B9), (0x1D4BB, 0x1D4BB), (0x1D4BD, 0x1D4C3),
    (0x1D4C5, 0x1D505), (0x1D507, 0x1D50A), (0x1D50D, 0x1D514), (0x1D516, 0x1D51C),
    (0x1D51E, 0x1D539), (0x1D53B, 0x1D53E), (0x1D540, 0x1D544), (0x1D546, 0x1D546),
    (0x1D54A, 0x1D550), (0x1D552, 0x1D6A3), (0x1D7CE, 0x1D7FF), (0x1F100, 0x1F10A),
    (0x1F110, 0x1F129), (0x1F12B, 0x1F12E), (0x1F130, 0x1F14F), (0x1F16A, 0x1F16C),
    (0x1F190, 0x1F190), (0x1FBF0, 0x1FBF9),

)
#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, 14.0): drawn as nothing.
IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)


#: Cyrillic and Greek letters drawn as a Latin letter (``p\u0430ssword`` with a CYRILLIC
#: SMALL LETTER A, ``\u0391PI_KEY`` with a GREEK CAPITAL ALPHA): no NFKC form, so a map
#: written here from the letters' shapes, each to the Latin letter it is drawn as. Only
#: letters whose common glyphs match closely (``\u043a`` is a ``k`` in most fonts; ``\u0432``
#: is a small capital ``B``, not listed).
LOOKALIKES = {
    # Cyrillic, small
    0x0430: "a", 0x0435: "e", 0x043A: "k", 0x043E: "o", 0x0440: "p", 0x0441: "c",
    0x0443: "y", 0x0445: "x", 0x0455: "s", 0x0456: "i", 0x0458: "j", 0x04BB: "h",
    0x0501: "d", 0x051B: "q", 0x051D: "w",
    # Cyrillic, capital
    0x0405: "S", 0x0406: "I", 0x0408: "J", 0x0410: "A", 0x0412: "B", 0x0415: "E",
    0x041A: "K", 0x041C: "M", 0x041D: "H", 0x041E: "O", 0x0420: "P", 0x0421: "C",
    0x0422: "T", 0x0423: "Y", 0x0425: "X", 0x04AE: "Y", 0x04BA: "H", 0x051A: "Q",
    0x051C: "W",
    # Greek, capital
    0x0391: "A", 0x0392: "B", 0x0395: "E", 0x0396: "Z", 0x0397: "H", 0x0399: "I",
    0x039A: "K", 0x039C: "M", 0x039D: "N", 0x039F: "O", 0x03A1: "P", 0x03A4: "T",
    0x03A5: "Y", 0x03A7: "X",
    # Greek, small
    0x03B1: "a", 0x03B9: "i", 0x03BA: "k", 0x03BD: "v", 0x03BF: "o", 0x03C1: "p",
    0x03C5: "u", 0x03F2: "c", 0x03F3: "j",
}
#: Combining marks (U+0300-036F): drawn on the letter before them, so ``pa\u0301ssword``
#: reads as ``password`` with an accent; dropped in the copy as an invisible char is.
MARKS = (0x0300, 0x036F)
#: Letters read as another letter only in a word wholly of look-alikes that then spells a
#: credential's name (:func:`_whole_names`): the Cyrillic capital EN is drawn as ``H``, but
#: ``\u0422\u041e\u041a\u0415\u041d`` is the Russian word for a token, read so by a
#: model (and a word of Cyrillic capitals is read as Russian spells it).
WHOLE_ONLY = {0x041D: "N"}
#: The longest name the spots look for whole in a word of look-alikes (``token``, ``passwd``,
#: ``apikey``, ``passkey``: 22 names). A longer one (a compound such as ``sessiontokens``,
#: 22 more) is looked for by its last :data:`_WHOLE_TAIL` letters (``key``, ``eys``,
#: ``ens``) and told whole by the fold's regex: spelled whole in the spots' hyperscan set
#: they scanned Cyrillic prose at 1.02 ms a MB, their tails 0.84, none 0.83 (a one-off
#: script, CPU medians of 41; bench/README.md).
_WHOLE_LONGEST = 7
_WHOLE_TAIL = 3
#: What a look-alike or a mark is folded beside: a name's char in ASCII. Cyrillic and Greek
#: prose has its letters beside each other and beside spaces and punctuation, so none of
#: it is folded (a run of them beside ASCII, ``\u0391PI_KEY``, ``t\u043eken``, is a name's).
_NAME_ASCII = "[A-Za-z0-9_]"
#: Astral chars are tried by a few wide ranges (a superset: a run of chars none of which folds
#: is passed over): the regex engine tests a char past the BMP's bitmap range by range, and
#: every char of a text against each such range, where the precise 31 ranges cost Latin
#: prose 25 ms a MB. The emoji (U+1F191 and up) are outside them.
_ASTRAL_LETTERS = ((0x10000, 0x1F190), (0x1FBF0, 0x1FBF9))
_ASTRAL_OTHERS = ((0xE0000, 0xE0FFF),)
#: CJK prose's own punctuation (FULLWIDTH ``!(),;?~``): folded inside a run that is folded,
#: but none makes a run folded by being beside ASCII. Each is some 7% of Chinese prose's
#: chars, and a search that asked each whether ASCII was beside it was twice the cost of
#: redacting that prose; none is a separator a name or a token is read by, and a value's
#: reading already goes on through them.
CJK_PUNCTUATION = frozenset((0xFF01, 0xFF08, 0xFF09, 0xFF0C, 0xFF1B, 0xFF1F, 0xFF5E))
#: Of those, the two a token or a cookie is glued by (FULLWIDTH ``~`` and ``;``): folded
#: alone between two printable ASCII chars too (``sha256\uff5ew…``, an OpenShift token, a
#: random draw of tests/redact/test_redact_full_width_invisible.py the code before showed
#: too). Not the others: each between ASCII chars, asked of each, scanned CJK prose 1.4x.
GLUED = frozenset((0xFF1B, 0xFF5E))
#: The FULLWIDTH forms of ASCII's punctuation (U+FF01-FF5E, but CJK prose's own and the
#: letters' and digits'): a run of one is folded beside an ASCII space too, as a separator
#: is written spaced out (`aws_secret_access_key` U+FF1D `S` was shown: a random draw of
#: tests/redact/test_redact_full_width_invisible.py). Chinese prose puts no ASCII space
#: beside its colon, so what it costs is unchanged.
SPACED = frozenset(code for code in range(0xFF01, 0xFF5F)
                   if not chr(code - 0xFEE0).isalnum()) - CJK_PUNCTUATION
#: Folded text is joined this many pieces at a time: a text of a zero-width char every other
#: char is a run every other char, and a list of all its pieces was 60x the text.
_PIECES = 4096
#: A run this long or shorter has its fold kept for the rest of its text (runs repeat: the
#: same zero-width char, the same full-width word), at most :data:`_KEPT_RUNS` of them.
_KEPT_RUN = 32
_KEPT_RUNS = 4096


class _Tables:
    """The fold's tables and regexes, made on first use: a command that redacts no text past
    ASCII never builds them (their regexes take some 60 ms to compile)."""

    def __init__(self) -> None:
        table: dict[int, str | None] = {}
        for lo, hi in COMPAT:
            for code in range(lo, hi + 1):
                table[code] = unicodedata.normalize("NFKC", chr(code))
        for char, letter in FOLDS.items():  # DOTLESS I and its capital are no NFKC form
            table[ord(char)] = letter
        for lo, hi in IGNORABLE:
            table.update(dict.fromkeys(range(lo, hi + 1)))
        # A mark that is also default-ignorable (U+034F) stays one: folded beside any
        # printable ASCII (``:\u034f/``, a DSN's scheme: a random draw of
        # test_a_fake_hidden_so_in_a_json_string_never_shows).
        folded_before = frozenset(table)  # NFKC forms, the invisible
        marks = frozenset(range(MARKS[0], MARKS[1] + 1))
        near = (frozenset(LOOKALIKES) | marks) - folded_before
        for code, letter in LOOKALIKES.items():
            table[code] = letter
        for code in range(MARKS[0], MARKS[1] + 1):
            table[code] = None
        #: Each char folded: to its ASCII, or None (dropped).
        self.table = table
        # The chars whose fold holds a letter or a digit: a run that holds one is a name's
        # or a token's part. The others (punctuation, spaces, the invisible) only where one
        # of them is beside printable ASCII, but CJK prose's punctuation; a look-alike or a
        # mark only beside a name's ASCII char.
        letters = frozenset(code for code, to in table.items()
                            if to and any(c.isalnum() for c in to)) - near
        beside = frozenset(table) - letters - CJK_PUNCTUATION - near
        #: The chars whose fold is not one char: where the copy's offsets move.
        self.width = {chr(code): len(to or "") for code, to in table.items()
                      if len(to or "") != 1}
        a = _char_class(letters, _ASTRAL_LETTERS)
        b = _char_class(beside, _ASTRAL_OTHERS)
        others = _char_class(table.keys() - letters, _ASTRAL_OTHERS)
        each = _char_class(table, _ASTRAL_LETTERS + _ASTRAL_OTHERS)
        #: A run to fold, from its first char (a char class first: the search skips to one in
        #: C): a run of the table's chars (none just before it) that holds a letter's or a
        #: digit's form, or whose first char is one of ``beside`` with printable ASCII before
        #: it, or whose last is one with printable ASCII after it. Each alternative reads the
        #: run once, possessively, and a run is tried from its first char only: linear.
        # Or a run whose first char is a look-alike or a mark with a name's ASCII char
        # before it, or whose last is one with such a char after it; or one of CJK prose's
        # punctuation alone between printable ASCII and a letter's form, a space between
        # them or none (``dark\uff1b \uff53\uff45\uff53\u2026``: the cookie's separator).
        s = _char_class(SPACED)
        n = _char_class(near)
        c = _char_class(CJK_PUNCTUATION)
        name = _NAME_ASCII
        #: Each credential name a word wholly of look-alikes can spell, as a regex of a
        #: class a letter (``[\u0422\u03a4][\u041e\u039f\u043e\u03bf]…``).
        whole = _whole_names()
        #: The names, and which of them a word spells (its group ``w<index>``).
        self.whole = list(whole)
        look = _char_class(set(LOOKALIKES) | set(WHOLE_ONLY))
        #: The names a word may end with, by length, longest first, each an alternation
        #: (its group ``w<index>``) matched at the word's end alone: a compound's lead
        #: letters, however many, are not tried a length at a time (a word wholly of
        #: look-alikes is a name or a compound at any length, as an ASCII name is read by
        #: its suffix at any length).
        ending: dict[int, list[str]] = {}
        for i, name_letters in enumerate(whole.values()):
            ending.setdefault(len(name_letters), []).append(
                f"(?P<w{i}>{''.join(map(_char_class, name_letters))})")
        self.which = [(size, re.compile("|".join(names)))
                      for size, names in sorted(ending.items(), reverse=True)]
        word = "[^\\W\\d_]"  # a letter: a name's run ends at a digit, a "_" or punctuation
        #: A table that reads a compound's lead letters as a word wholly of them is read (the
        #: Cyrillic capital EN as ``N``).
        self.lead = {**self.table, **WHOLE_ONLY}
        #: A name wholly of look-alikes, no letter beside it (``\u0422\u041e\u041a…=S``),
        #: a compound's lead letters before it: the run's first alternative, so its reading
        #: wins over a run's beside ASCII.
        # Nor a mark after it: a mark is drawn on the letter before it, so the word goes on
        # (``\u0440\u0430\u0455\u0455`` U+0301 ``word`` is ``password``, not ``pass``).
        ends = f"(?!{word}|{_char_class(range(MARKS[0], MARKS[1] + 1))})"
        shortest = min(map(len, whole), default=1)
        #: A word wholly of look-alikes, as long as a name is at least, no letter beside it:
        #: read once, possessively; :func:`_whole_fold` tells whether a name ends it.
        # A char whose fold holds no letter (``\u2474`` is ``(1)``, ``\u2460`` is ``1``) is
        # no letter before such a word, though Python's ``\w`` holds it: the model reads the
        # fold (a random draw of test_a_dropped_char_where_no_letter_is_before_it_changes_no_fold
        # showed ``\u2474\u0422\u041e\u041a\u0415\u041d=S``). Only those ``word`` holds
        # are asked: a short class. (None is ever just before a run: it would be the run's.
        # So the run regex asks ``word`` there, as before, then for one in the run: atomic,
        # as a word that spells no name was asked both, 1.15x the fold of Cyrillic prose.)
        unlettered = frozenset(code for code, to in table.items()
                               if to and not any(c.isalpha() for c in to))
        wordlike = _char_class(code for code in unlettered if re.match(word, chr(code)))
        letter = f"(?!{wordlike}){word}"
        self.whole_word = re.compile(f"(?<!{letter}){look}{{{shortest},}}+{ends}")
        #: What opens the run of such a word: the chars the fold drops (the marks, the
        #: invisible), no letter before them (``\u200b\u0422\u041e…=S``), and those it folds
        #: to no letter (``\u2474``, full-width ``(``), a letter before them or none: the
        #: word's fold has no letter before it either way.
        # At most _DROPPED_MOST of them: a longer run is no typo's, and each is a point of
        # the fold's map (a MB of invisible chars before one name was 36x the input held).
        gone = {code for code, to in table.items() if not to}
        dropped, unfolded = _char_class(gone), _char_class(unlettered)
        drop = f"{_char_class(gone | unlettered)}{{0,{_DROPPED_MOST}}}+"
        self.dropped = re.compile(drop)
        # Told first by the run's length alone, as long as a name is, and no letter after
        # it: the names were tried at each run (``=\u0391bc``), a sixth of folding a MB of
        # look-alikes beside ASCII.
        size = f"{{{shortest},}}+"
        # Then whether the run ends with a name: a look-behind a length (each of one width),
        # tried once at the run's end, where a compound's lead tried at each of its letters
        # was 1.4x the regex passes' time on Cyrillic capitals glued into long words.
        by_size: dict[int, list[str]] = {}
        for spelling in whole.values():
            by_size.setdefault(len(spelling), []).append("".join(map(_char_class, spelling)))
        ended = "|".join(f"(?<={'|'.join(names)})" for _, names in sorted(by_size.items()))
        self.run = re.compile(
            f"{each}(?<!{each}.)(?:(?>(?<!{word}.)|(?<=(?={dropped}*+{unfolded}).))"
            f"(?<=(?={drop}{look}{size}{ends}).)"
            f"(?P<whole>){drop}{look}*+(?:{ended})"
            f"|(?:(?<={a})|{others}*+{a}){each}*+"
            f"|(?<=[!-~]{b}|[ ]{s}){each}*+|{each}*+(?:(?<={b})(?=[!-~])|(?<={s})(?=[ ]))"
            f"|(?<={name}{n}){each}*+|{each}*+(?<={n})(?={name})"
            f"|(?<=[!-~]{c})(?=[ ]?{a})|(?:(?<={a}{c})|(?<={a}[ ]{c}))(?=[!-~])"
            f"|(?<=[!-~]{_char_class(GLUED)})(?=[!-~]))")
        self.uneven = re.compile(_char_class(map(ord, self.width)))  # a run's: short
        #: A char of a run but the marks :func:`_marks_among` reads in C, in UTF-8: each of
        #: the table's as a literal, any 4-byte char (an astral run char: asked of ``each``).
        #: In French as typeset (a no-break space every few words) some 5 ms a MB.
        by_lead: dict[int, set[bytes]] = {}
        for code in table.keys() - set(range(ord(_MARK_FIRST), ord(_MARK_LAST) + 1)):
            if code >= 0x10000:
                continue
            form = chr(code).encode()
            by_lead.setdefault(form[0], set()).add(form[1:])
        self.others = re.compile(b"(?s)" + b"|".join(
            [b"\\x%02x" % lead + _tree(tails) for lead, tails in sorted(by_lead.items())]
            # A lead byte each: as one class it left sre no bytes to skip to (60 ms a MB).
            + [b"\\x%02x..." % lead for lead in range(0xF0, 0xF5)]))
        self.each = re.compile(each)
        #: Where a run to fold is, in UTF-8, for the regex engine (see :func:`spots`).
        self.spots = re.compile(_spots(letters, beside, near, whole))
        #: The same as a set of expressions for hyperscan (see :func:`hyperscan_spots`).
        self.spots_hs = _hyperscan_spots(letters, beside, near, whole)


#: The most chars the fold drops (marks, the invisible) that may open a run read as a name
#: wholly of look-alikes (``\u200b\u0422\u041e\u041a\u0415\u041d=S``).
_DROPPED_MOST = 16


@cache
def _tables() -> _Tables:
    return _Tables()


def _whole_names() -> dict[str, tuple[frozenset[int], ...]]:
    """Each credential name (a field's, letters only) that look-alikes can spell every
    letter of, to the look-alikes drawn as each of its letters in either case (and
    :data:`WHOLE_ONLY`'s)."""
    from elision.redact.generic import FIELD_SUFFIXES  # generic reads names through here

    drawn: dict[str, set[int]] = {}
    for code, letter in [*LOOKALIKES.items(), *WHOLE_ONLY.items()]:
        drawn.setdefault(letter.lower(), set()).add(code)
    return {name: tuple(frozenset(drawn[c]) for c in name) for name in FIELD_SUFFIXES
            if name.isascii() and name.isalpha() and all(c in drawn for c in name)}


def _spotted(whole: dict[str, tuple[frozenset[int], ...]]) -> list[tuple[frozenset[int], ...]]:
    """What the spots look for of ``whole``'s names: each name of :data:`_WHOLE_LONGEST`
    letters or fewer, each longer one's last :data:`_WHOLE_TAIL` (a superset the fold's
    regex tells: a compound's lead letters before a name are none of the spots' either)."""
    return sorted({letters if len(letters) <= _WHOLE_LONGEST else letters[-_WHOLE_TAIL:]
                   for letters in whole.values()}, key=lambda letters: [
                       sorted(codes) for codes in letters])


#: What follows a name wholly of look-alikes where the spots look for it: what assigns it
#: (:data:`~elision.redact.generic.TEXT_SEPARATORS`, a JSON member's closing quote), so
#: hyperscan anchors on that char, not on a Cyrillic letter of every word (Cyrillic prose's
#: scan was 0.63 -> 0.90 ms a MB with the names alone).
_ASSIGNED = rb"(?:[ ]?[=:]|[\x22'\\>])"


def _spelled(letters: tuple[frozenset[int], ...], tail: bytes = _ASSIGNED) -> bytes:
    """A name :func:`_whole_names` gave, in UTF-8, as a regex: an alternation a letter, then
    ``tail``."""
    return b"".join(b"(?:" + b"|".join(sorted(_escaped(code) for code in codes)) + b")"
                    for codes in letters) + tail


def _escaped(code: int) -> bytes:
    return b"".join(b"\\x%02x" % byte for byte in chr(code).encode())


def _ranges(codes: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for code in sorted(codes):
        if out and out[-1][1] == code - 1:
            out[-1] = (out[-1][0], code)
        else:
            out.append((code, code))
    return out


def _char_class(codes: Iterable[int], astral: tuple[tuple[int, int], ...] | None = None) -> str:
    """A regex class of ``codes``; with ``astral``, of those in the BMP and of the
    ``astral`` ranges past it."""
    if astral is None:
        ranges = _ranges(codes)
    else:
        ranges = _ranges(code for code in codes if code < 0x10000) + list(astral)
    return "[" + "".join(
        f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges
    ) + "]"


def _spots(letters: frozenset[int], beside: frozenset[int], near: frozenset[int],
           whole: dict[str, tuple[frozenset[int], ...]]) -> bytes:
    """Where a run to fold is, in UTF-8: a letter's or a digit's form, or one of ``beside``
    with a printable ASCII byte just before or after it, or one of ``near`` with a name's
    ASCII char (each run the fold folds holds one, and each is in a run it folds; a CJK
    punctuation char alone beside a letter's form has that form), or a name spelled wholly
    in look-alikes (``whole``). An alternative a lead byte, each opening with it as a
    literal: the search then skips in C to a byte that can open one."""
    by_lead: dict[int, tuple[set[bytes], set[bytes], set[bytes], set[bytes]]] = {}
    for group, codes in enumerate((letters, beside - SPACED, beside & SPACED, near)):
        for code in codes:
            form = chr(code).encode()
            by_lead.setdefault(form[0], (set(), set(), set(), set()))[group].add(form[1:])
    # Each whole name by the lead byte of its first letter: the rest of that letter, then
    # the rest of the name.
    spelled: dict[int, set[bytes]] = {}
    for word in _spotted(whole):
        rest = _spelled(word[1:])
        for code in word[0]:
            form = chr(code).encode()
            spelled.setdefault(form[0], set()).add(
                b"".join(b"\\x%02x" % byte for byte in form[1:]) + rest)
    assert set(spelled) <= set(by_lead)  # each a look-alike's lead, so one of ``near``'s
    branches = []
    name = _NAME_ASCII.encode()
    for lead, (letter_tails, beside_tails, spaced_tails, near_tails) in sorted(
            by_lead.items()):
        width = len(next(iter(letter_tails or beside_tails or spaced_tails or near_tails))) + 1
        parts = [_tree(letter_tails)] if letter_tails else []
        if beside_tails:
            parts.append(_tree(beside_tails) + b"(?:(?<=[!-~].{%d})|(?=[!-~]))" % width)
        if spaced_tails:  # beside an ASCII space too
            parts.append(_tree(spaced_tails) + b"(?:(?<=[ -~].{%d})|(?=[ -~]))" % width)
        if near_tails:  # beside a name's ASCII char
            parts.append(_tree(near_tails) + b"(?:(?<=%s.{%d})|(?=%s))" % (name, width, name))
        if lead in spelled:  # told by the byte after the lead first: one step where none
            seconds = sorted({tail[:4] for tail in spelled[lead]})
            parts.append(b"(?=[" + b"".join(seconds) + b"])(?:"
                         + b"|".join(sorted(spelled[lead])) + b")")
        body = parts[0] if len(parts) == 1 else b"(?:" + b"|".join(parts) + b")"
        branches.append(b"\\x%02x" % lead + body)
    return b"(?s)" + b"|".join(branches)


def _hyperscan_spots(
    letters: frozenset[int], beside: frozenset[int], near: frozenset[int],
    whole: dict[str, tuple[frozenset[int], ...]],
) -> list[bytes]:
    """:func:`_spots` as hyperscan reads it fastest: an expression a char (each letter's
    form a literal; each of ``beside`` after and before a printable ASCII byte, hyperscan
    having no look-arounds), the tag chars (U+E0000-E0FFF) as one range, and ``near`` as
    one alternation after and before a name's ASCII char. As one alternation it scanned CJK
    prose at 2 ms a MB; as a set, 0.7."""
    def escaped(code: int) -> bytes:
        return b"".join(b"\\x%02x" % byte for byte in chr(code).encode())

    tags = b"\\xf3\\xa0[\\x80-\\x83][\\x80-\\xbf]"
    exprs = [escaped(code) for code in sorted(letters)]
    for code in sorted(beside):
        if not 0xE0000 <= code <= 0xE0FFF:
            ascii_ = b"[ -~]" if code in SPACED else b"[!-~]"  # SPACED: beside a space too
            exprs += [ascii_ + escaped(code), escaped(code) + ascii_]
    # ``near`` beside a name's ASCII char, as literals of two and three bytes: an ASCII
    # char then a lead byte of theirs (a superset: any letter of those scripts glued after
    # ASCII), and each look-alike then an ASCII char. As byte classes (``[A-Za-z0-9_]`` then
    # the leads) they scanned Cyrillic prose at 3.5 ms a MB, 0.8 before them; as some 4,800
    # literals, 0.8 (compiled once a host, then read from the cache).
    # Not after JSON's escape letters (``\\n``, ``\\t``…: every line of a JSON string's
    # Cyrillic prose opens so); the run's ASCII after it is looked for too.
    name = bytes(c for c in range(0x80) if re.fullmatch(_NAME_ASCII, chr(c)))
    leads = sorted({chr(code).encode()[0] for code in near})
    pairs = [b"\\x%02x\\x%02x" % (c, lead) for c in name if c not in b"bfnrt"
             for lead in leads]
    pairs += [escaped(code) + b"\\x%02x" % c for code in sorted(near)
              if not MARKS[0] <= code <= MARKS[1] for c in name]
    # A mark follows its letter: an ASCII one's pair above holds it (its lead byte), so no
    # mark then ASCII is looked for (as literals they were 7,000 more, and a process's first
    # text past ASCII loaded the set 25 ms slower; as a byte class, CJK prose scanned 1.3x),
    # but a mark after an escape's letter is (``t\u0301oken``), and a look-alike then a
    # mark's lead byte (``\u0440\u0301assword``).
    pairs += [b"\\x%02x" % c + escaped(code) for c in b"bfnrt"
              for code in range(MARKS[0], MARKS[1] + 1)]
    mark_leads = sorted({chr(code).encode()[0] for code in range(MARKS[0], MARKS[1] + 1)})
    pairs += [escaped(code) + b"\\x%02x" % lead for code in sorted(LOOKALIKES)
              for lead in mark_leads]
    # :data:`GLUED` between two printable ASCII chars (``sha256\uff5ew…``).
    pairs += [b"[!-~]" + escaped(code) + b"[!-~]" for code in sorted(GLUED)]
    # A name wholly of look-alikes (``\u0422\u041e\u041a\u0415\u041d``), with no ASCII
    # beside it: an expression a name.
    pairs += [_spelled(word) for word in _spotted(whole)]
    return [*exprs, b"[!-~]" + tags, tags + b"[!-~]", *pairs]


def _tree(forms: set[bytes]) -> bytes:
    """A regex (bytes) that matches each of ``forms`` (of one length) and nothing else: a
    tree of byte classes, the forms that share their tails sharing one alternative."""
    if forms == {b""}:
        return b""
    tails: dict[int, set[bytes]] = {}
    for form in forms:
        tails.setdefault(form[0], set()).add(form[1:])
    heads: dict[frozenset[bytes], list[int]] = {}
    for head, rest in tails.items():
        heads.setdefault(frozenset(rest), []).append(head)
    branches = sorted(_byte_class(firsts) + _tree(set(rest)) for rest, firsts in heads.items())
    return branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"


def _byte_class(values: list[int]) -> bytes:
    return b"[" + b"".join(
        b"\\x%02x" % lo if lo == hi else b"\\x%02x-\\x%02x" % (lo, hi) for lo, hi in _ranges(values)
    ) + b"]"


class Folded:
    """A text's folded copy (:attr:`text`) and the way back to the text's offsets.

    The map is a list of points: from folded offset ``at[i]`` on, the chars are the text's
    from ``came[i] >> 1`` on, one for one; where ``came[i]`` is odd, every folded char up to
    the next point is that one original char (an expansion: ``\\ufb01`` is ``fi``). A char
    dropped makes a point after it; a char that folds to one char makes none."""

    __slots__ = ("_at", "_came", "text")

    def __init__(self, text: str, at: array[int], came: array[int]) -> None:
        self.text = text
        self._at = at
        self._came = came

    def start(self, at: int) -> int:
        """The text's offset of the char that folded char ``at`` came from."""
        i = bisect_right(self._at, at) - 1
        if i < 0:
            return at
        came = self._came[i]
        return came >> 1 if came & 1 else (came >> 1) + at - self._at[i]

    def end(self, at: int) -> int:
        """The text's offset just after the char that folded char ``at - 1`` came from and
        the chars dropped right after it: a value read to its closing quote (``"S"`` then a
        SOFT HYPHEN) is withheld to that quote, as it was read before the fold."""
        if at <= 0:
            return 0
        return max(self.start(at - 1) + 1, self.start(at))

    def spans(self, spans: Iterable[Span]) -> Iterator[Span]:
        """``spans`` of :attr:`text` as the text's, in order: each over every char its folded
        chars came from (the invisible ones between and right after them too). Two spans
        that met inside one expansion now overlap: the caller merges them."""
        for start, end, rule in spans:
            yield make_span((self.start(start), self.end(end), rule))


class _Dropped(Folded):
    """A :class:`Folded` whose copy is the text with some chars dropped and the rest each
    folded to one char (no expansion): ``dropped()`` gives a byte a char of the text, ``m``
    where the char was dropped. Made when an offset is first asked (a text none of whose
    folded chars is withheld never asks one), and read a block at a time: a span asks a few
    counts in C, where a point a mark was 15 ms a MB of NFD prose."""

    __slots__ = ("_dropped", "_kept", "_size")

    def __init__(self, text: str, size: int, dropped: Callable[[], bytes]) -> None:
        super().__init__(text, array("I"), array("I"))
        self._size = size  # the text's length
        self._dropped: bytes | Callable[[], bytes] = dropped
        self._kept: list[int] = []  # the chars kept before each block

    def _made(self) -> bytes:
        dropped = self._dropped
        if not isinstance(dropped, bytes):
            dropped = self._dropped = dropped()
            self._kept = list(accumulate(
                (_BLOCK - dropped.count(b"m", lo, lo + _BLOCK)
                 for lo in range(0, len(dropped), _BLOCK)), initial=0))
        return dropped

    def starts(self, ats: Iterable[int]) -> list[int]:
        """:meth:`start` of each of ``ats``, in order (ascending), in one pass: a trigger a
        record of a JSON body asked a block's search each (3 us)."""
        dropped = self._made()
        out: list[int] = []
        folded, size = len(self.text), len(dropped)
        was = came = 0  # the last folded offset asked, and its char's
        for at in ats:
            if at >= folded:
                out.append(self._size)
                continue
            # As many kept chars after ``came`` as ``at`` is after ``was``: the chars dropped
            # among them counted until none more is.
            end = came + at - was
            skipped = dropped.count(b"m", came, end)
            while skipped:
                end, before = end + skipped, end
                skipped = dropped.count(b"m", before, end)
            while end < size and dropped[end] == _DROPPED:
                end += 1
            out.append(end)
            was, came = at, end
        return out

    def start(self, at: int) -> int:
        if at >= len(self.text):
            return self._size
        dropped = self._made()
        kept = self._kept
        block = bisect_right(kept, at) - 1
        if block < 0:
            return at
        # The first end in the block with more than ``at`` chars kept before it: the kept
        # char just before it is folded char ``at``.
        lo = block * _BLOCK
        want = at - kept[block]
        a, b = lo, min(lo + _BLOCK, len(dropped))
        while a < b:
            mid = (a + b) // 2
            if mid + 1 - lo - dropped.count(b"m", lo, mid + 1) > want:
                b = mid
            else:
                a = mid + 1
        return a


#: The chars of a :class:`_Dropped` map counted a block at a time.
_BLOCK = 256


def folded(text: str, data: bytes | None = None) -> Folded | None:
    """``text`` folded where a run of compatibility forms or invisible chars can spell a
    name or a token (see the module's doc); None where nothing in it is folded. ``data``,
    when given, is ``text`` in UTF-8 (it tells a text of ASCII and marks at once)."""
    if text.isascii():
        return None
    tables = _tables()
    first = 0
    if data is None:  # the regex engine's: told from the first run (no text encoded)
        run = tables.run.search(text)
        if run is None:
            return None
        first = run.start()
        if _MARK_FIRST <= run.group()[0] <= _MARK_LAST:
            data = text.encode("utf-8", "surrogatepass")
    if data is not None and b"\xcc" in data:  # a mark U+0300-033F: one memchr
        marked = _marks_only(text, data) or _marks_among(text, data)
        if marked is not None:
            return marked
    return _folded_runs(tables, text, first)


def _folded_runs(tables: _Tables, text: str, first: int = 0) -> Folded | None:
    """:func:`folded`, a run at a time (the run regex finds none before ``first``)."""
    typecode = "I" if len(text) < 1 << 30 else "q"
    at, came = array(typecode), array(typecode)
    chunks: list[str] = []
    pieces: list[str] = []
    kept: dict[str, _Run | None] = {}
    wholes: dict[str, _Run] = {}  # each a name's spelling in look-alikes
    copied = size = 0  # the text's chars copied so far, and the copy's length
    for run in tables.run.finditer(text, first):
        old = run.group()
        got: _Run | None
        if run.lastindex:  # its one group, ``whole``: an attribute, where group() is a call
            # One char for one: no points. Kept apart from the runs' folds: the same chars
            # beside ASCII fold by the map alone.
            got = wholes.get(old)
            if got is None:
                got = _whole_run(tables, old)
                if len(wholes) < _KEPT_RUNS:
                    wholes[old] = got
        elif old in kept:
            got = kept[old]
        else:
            got = _run(tables, old)
            if len(old) <= _KEPT_RUN and len(kept) < _KEPT_RUNS:
                kept[old] = got
        if got is None:
            continue  # an astral char the wide ranges hold and the table does not
        new, points = got
        a = run.start()
        pieces.append(text[copied:a])
        size += a - copied
        pieces.append(new)
        for i, where, many in points:
            # A point after each char dropped; for an expansion, one at its first char
            # (odd: each of its chars is that one char) and one after its last.
            if many:
                origin, ahead = 2 * (a + i) + 1, size + where
                if at and at[-1] == ahead:
                    came[-1] = origin
                else:
                    at.append(ahead)
                    came.append(origin)
            origin, ahead = 2 * (a + i + 1), size + where + many
            if at and at[-1] == ahead:
                came[-1] = origin  # the last point is passed over: no folded char between
            else:
                at.append(ahead)
                came.append(origin)
        size += len(new)
        copied = run.end()
        if len(pieces) >= _PIECES:
            chunks.append("".join(pieces))
            pieces.clear()
    if not copied:
        return None
    pieces.append(text[copied:])
    chunks.append("".join(pieces))
    del pieces
    return Folded("".join(chunks), at, came)


#: The marks whose UTF-8 opens with 0xCC (U+0300-033F, no U+034F among them): a text of
#: ASCII and these is folded by :func:`_marks_only`.
_MARK_FIRST, _MARK_LAST = "\u0300", "\u033f"
#: A text of ASCII and those marks, a byte a byte of its UTF-8: ``n`` a name's ASCII char,
#: ``o`` any other ASCII char, ``mc`` a mark (its two bytes), ``?`` any other lead byte.
_SYMBOLS = bytes(
    ord("n") if re.fullmatch(_NAME_ASCII, chr(byte)) else ord("o") if byte < 0x80
    else ord("m") if byte == 0xCC else ord("c") if byte < 0xC0 else ord("?")
    for byte in range(256))
_NOT_ASCII = bytes(range(0x80, 0x100))
#: A run of two marks or more (only such runs are matched: a regex match a mark was the cost
#: this path is there to save).
_RUNS = re.compile(b"mc(?:mc)++")


def _marks_only(text: str, data: bytes) -> Folded | None:
    """:func:`folded` of a text of ASCII and marks (NFD prose: an accent a word), told and
    folded in a few passes in C where a run a mark cost 0.8 us; None where the text holds
    another char past ASCII, no mark, or a run of marks with no name's ASCII char beside it
    (such a run is not folded: :func:`_folded_runs` tells them)."""
    if not _marks_beside_names(data):
        return None
    # Each run is folded: dropped (a char of the map's ``m``).
    return _Dropped(data.translate(None, _NOT_ASCII).decode("ascii"), len(text),
                    partial(data.translate, _SYMBOLS, _FOLLOWING))


def _marks_beside_names(data: bytes) -> bool:
    """Whether UTF-8 ``data`` is of ASCII and marks U+0300-033F, a mark at least, and each
    run of its marks has a name's ASCII char beside it (so the fold drops every mark)."""
    chars = data.translate(_SYMBOLS)
    if b"?" in chars or b"m" not in chars:  # another char past ASCII, or no mark: one memchr
        return False
    # A mark follows its letter: in NFD prose no run opens after anything but a name's char,
    # told by one search; where one does, each run is asked whether a name's char is after it.
    if b"omc" in chars or chars.startswith(b"mc"):
        runs = _RUNS.sub(b"mc", chars) if b"mcm" in chars else chars
        if (b"omco" in runs or runs.startswith(b"mco") or runs.endswith(b"omc")
                or runs == b"mc"):
            return False  # a run of marks with no name's char beside it: left as it is
    return True


def unmarked(data: bytes) -> tuple[bytes, _Dropped] | None:
    """A JSON serialization (UTF-8 ``data``) of ASCII and marks U+0300-033F, each run of
    them beside a name's ASCII char in its string, as the fold reads each string: its ASCII
    bytes (every mark dropped), and the way back to ``data``'s offsets (:meth:`Folded.start`
    of a byte). None where the body holds another char past ASCII, a run of marks the fold
    leaves, or a mark after an escape (``\\n``, ``\\u00e9``: a name's char in the
    serialization, not in the string)."""
    if not _marks_beside_names(data) or (b"\\" in data and _ESCAPED_MARK.search(data)):
        return None
    ascii_ = data.translate(None, _NOT_ASCII)
    return ascii_, _Dropped(ascii_.decode("ascii"), len(data),
                            partial(data.translate, _MARK_BYTES))


#: A mark after an escape's last char, in a JSON serialization.
_ESCAPED_MARK = re.compile(rb"\\(?:[bfnrt]|u[0-9A-Fa-f]{4})\xcc")
#: A byte a byte of UTF-8 of ASCII and marks, ``m`` each byte of a mark (dropped).
_MARK_BYTES = bytes(ord("m") if byte >= 0x80 else ord("k") for byte in range(256))


#: UTF-8's continuation bytes: deleted, a byte a char is left.
_FOLLOWING = bytes(range(0x80, 0xC0))
#: A run of marks with no name's char beside it, in a byte a char (``x``: another char of a
#: run), possessive: a run is tried from its first mark only.
_LONE = re.compile(b"(?<![nmx])m++(?![nmx])")


def _marks_among(text: str, data: bytes) -> Folded | None:
    """:func:`_marks_only` of a text that holds other chars past ASCII too (French as
    typeset: a curly apostrophe, ``\u00ab``, a no-break space): the marks are folded in C
    as there, each other char of a run (:attr:`_Tables.others`, few) has its run folded as
    :func:`_folded_runs` folds it. None where a run of marks has no name's char beside it,
    a run's fold is not one char for one (an expansion), or the text holds a surrogate."""
    if b"\xed" in data:  # a lone surrogate would be dropped by the decoder's ``ignore``
        return None
    tables = _tables()
    chars = bytearray(data.translate(_SYMBOLS, _FOLLOWING))  # a byte a char: n o m ?
    # Each other char of a run, at its char offset (the UTF-8 before it counted in C) and its
    # byte's: machine integers, where a list of int objects was 0.4x the body (issue 23).
    code = "I" if len(data) < 1 << 32 else "q"
    runs, bytes_at = array(code), array(code)
    byte = char = 0
    for found in tables.others.finditer(data):
        at = found.start()
        char += len(data[byte:at].translate(None, _FOLLOWING))
        byte = at
        if data[at] < 0xF0 or tables.each.match(text, char):  # a BMP one is the table's
            chars[char] = _OTHER
            runs.append(char)
            bytes_at.append(at)
    if (b"om" in chars or b"?m" in chars or chars.startswith(b"m")) and _LONE.search(chars):
        return None  # a run of marks left as it is
    # The fold written as UTF-8, each stretch between two runs from the body with every mark
    # dropped in C (each lead byte deleted here, the byte after it, now no char's, ignored by
    # the decoder), each other char's run put back folded, and decoded a chunk at a time. A
    # decoded copy of the whole beside a str a stretch (an object each) was 3.6x the body.
    chunks: list[str] = []
    out = io.BytesIO()
    put = out.write
    # The runs whose chars are each kept (their marks too), and the chars the fold drops in
    # them: what the map (a byte a char of the text) says apart from the marks, so it is made
    # again from the body when a span asks, not held (issue 23).
    kept_runs, drops_at = array(code), array(code)
    copied = end = marks_kept = 0  # the body's bytes written; the char after the last run
    # read; the marks the runs of ``kept_runs`` hold
    folds = False  # whether a run of another char is folded
    kept: dict[str, _Run | None] = {}  # each run's fold, as :func:`_folded_runs` keeps them
    size = len(chars)
    for char, at in zip(runs, bytes_at, strict=True):
        if char < end:
            continue  # in the run just read
        start = char
        while start and chars[start - 1] in _RUN_CHARS:
            start -= 1
        end = char + 1
        while end < size and chars[end] in _RUN_CHARS:
            end += 1
        run = tables.run.match(text, start)
        if run is None:
            if end - start == 1:  # one char, left as it is: the body's stretch holds it
                continue
            new = text[start:end]
            drops: tuple[tuple[int, int, int], ...] = ()
        else:
            old = run.group()
            if run.lastindex:
                (new, drops), folds = _whole_run(tables, old), True
            else:
                if old in kept:
                    got = kept[old]
                else:
                    got = kept[old] = _run(tables, old)
                new, drops = got or (old, ())
                folds = folds or got is not None
            new += text[run.end():end]
        inside = chars.count(b"m", start, end) if end - start > 1 else 0
        if inside or drops:
            kept_runs += array(code, (start, end))
            marks_kept += inside
            for i, _, many in drops:
                if many:
                    return None  # an expansion: the map holds none
                drops_at.append(start + i)
        # The run's bytes: back from its other char to its first, on to its end.
        first = at if char == start else _utf8_back(data, at, char - start)
        put(data[copied:first].translate(None, b"\xcc"))
        put(new.encode("utf-8"))
        copied = at + _UTF8_WIDTH[data[at]] if end - char == 1 else _utf8_on(data, at, end - char)
        if out.tell() >= _FOLD_CHUNK:
            chunks.append(out.getvalue().decode("utf-8", "ignore"))
            out = io.BytesIO()
            put = out.write
    if not folds and not drops_at and chars.count(b"m") == marks_kept:
        return None  # nothing folded: each mark is in a run of another char, left as it is
    del chars, runs, bytes_at
    put(data[copied:].translate(None, b"\xcc"))
    chunks.append(out.getvalue().decode("utf-8", "ignore"))
    del out
    return _Dropped("".join(chunks), len(text),
                    partial(_marks_map, data, kept_runs, drops_at))


#: The bytes of :func:`_marks_among`'s fold decoded at once: a stretch between two runs is
#: written whole, so a chunk is at most that and this.
_FOLD_CHUNK = 1 << 16


def _marks_map(data: bytes, kept_runs: array[int], drops_at: array[int]) -> bytes:
    """:func:`_marks_among`'s map of UTF-8 ``data``: a byte a char, ``m`` each mark, but in
    ``kept_runs`` (from, to: each char kept) those of ``drops_at`` alone."""
    chars = bytearray(data.translate(_SYMBOLS, _FOLLOWING))
    for i in range(0, len(kept_runs), 2):
        start, end = kept_runs[i], kept_runs[i + 1]
        chars[start:end] = b"k" * (end - start)
    for at in drops_at:
        chars[at] = _DROPPED
    return bytes(chars)


def _utf8_back(data: bytes, at: int, chars: int) -> int:
    """Where the char ``chars`` chars before the one at byte ``at`` of UTF-8 ``data`` opens."""
    for _ in range(chars):
        at -= 1
        while data[at] & 0xC0 == 0x80:
            at -= 1
    return at


def _utf8_on(data: bytes, at: int, chars: int) -> int:
    """Where the char ``chars`` chars after the one at byte ``at`` of UTF-8 ``data`` opens."""
    for _ in range(chars):
        at += _UTF8_WIDTH[data[at]]
    return at


#: The bytes of the UTF-8 char a lead byte opens.
_UTF8_WIDTH = bytes(1 if b < 0x80 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
                    for b in range(256))


#: A byte a char of a run's chars (:func:`_marks_among`): a mark, another char of a run.
_RUN_CHARS = b"mx"
_OTHER, _DROPPED = ord("x"), ord("m")


#: A run's fold, and each of its chars whose fold is not one char: where it is in the run,
#: where its fold starts in the run's fold, and how many chars that is (0: dropped).
_Run = tuple[str, tuple[tuple[int, int, int], ...]]


def _run(tables: _Tables, old: str) -> _Run | None:
    """The fold of one run (None where it is the run as it is)."""
    new = old.translate(tables.table)
    if new == old:
        return None
    points: list[tuple[int, int, int]] = []
    if tables.uneven.search(old):
        width, where = tables.width.get, 0
        for i, char in enumerate(old):
            many = width(char, 1)
            if many != 1:
                points.append((i, where, many))
            where += many
    return new, tuple(points)


def _whole_run(tables: _Tables, run: str) -> _Run:
    """The fold of a run that is a word wholly of look-alikes, the chars that open it (the
    fold drops them, or folds them to no letter) folded as any run's: a point each."""
    lead = tables.dropped.match(run).end()  # type: ignore[union-attr]
    new, points = _run(tables, run[:lead]) or (run[:lead], ())
    return new + _whole_fold(tables, run[lead:]), points


def _whole_fold(tables: _Tables, word: str) -> str:
    """A word wholly of look-alikes as the credential name it spells, each letter in the
    case its look-alike is (one char for one)."""
    which = _name_ending(tables, word)
    if which is None or which.lastgroup is None:
        return word.translate(tables.table)
    name = tables.whole[int(which.lastgroup[1:])]
    at = which.start(which.lastgroup)
    return word[:at].translate(tables.lead) + "".join(
        n.upper() if c.isupper() else n for c, n in zip(word[at:], name, strict=True))


def _name_ending(tables: _Tables, word: str) -> re.Match[str] | None:
    """The name a word wholly of look-alikes ends with, the longest first (the fewest lead
    letters: a compound's), each length tried once at the word's end; None for none."""
    for size, names in tables.which:
        if size <= len(word) and (which := names.fullmatch(word, len(word) - size)):
            return which
    return None


def fold_name(name: str) -> str:
    """``name`` as a model reads it: every one of the table's chars folded (a name is short:
    no run need be told), and a word in it wholly of look-alikes that spells a credential's
    name read as that name (``\u0422\u041e\u041a\u0415\u041d`` is ``TOKEN``)."""
    if name.isascii():
        return name
    tables = _tables()
    # Each piece folded on its own: a dropped char (a mark, the invisible) or one folded to
    # more than one (U+FB01 is ``fi``) moves the fold's offsets off the name's, so a word's
    # span in ``name`` is no span of the whole name's fold.
    out: list[str] = []
    done = 0
    for word in tables.whole_word.finditer(name):
        if _name_ending(tables, word.group()) is None:
            continue  # a word that spells no name: folded by the map, with the rest
        a, b = word.span()
        out += (name[done:a].translate(tables.table), _whole_fold(tables, word.group()))
        done = b
    out.append(name[done:].translate(tables.table))
    return "".join(out)


def spots() -> re.Pattern[bytes]:
    """Where a run to fold is, in UTF-8 (each match is inside a run :func:`folded` folds)."""
    return _tables().spots


def holds_wide(data: bytes) -> bool:
    """Whether UTF-8 ``data`` holds a run :func:`folded` would fold, by the regex engine
    (:func:`elision.redact.triggers.holds_wide` asks hyperscan where it can)."""
    return not data.isascii() and _tables().spots.search(data) is not None


def hyperscan_spots() -> list[bytes]:
    """:func:`holds_wide`'s expressions for hyperscan, a set (see :func:`_hyperscan_spots`)."""
    return _tables().spots_hs
