"""Whether a value that stands where a credential would is a placeholder: what docs, examples
and configs write in a token's place, not a token.

A token a service generates is random: its chars follow each other as dice fall. A placeholder
is typed by a person, and shows it:

* a run along the alphabet or along a keyboard's row (``abcdefghijklmnop``,
  ``qwertyuiopasdfgh``, ``zyxwvuts``, ``1234567890``), or one char over and over
  (``xxxxxxxx``): most of its neighbouring chars are a step apart (:func:`stepped`);
* a short unit repeated (``abcabcabcabc``, ``xyzxyzxyz``): :func:`periodic`;
* a template or a mask (``<token>``, ``${TOKEN}``, ``{{token}}``, ``%TOKEN%``, ``***``);
* a word that says it (``YOUR_TOKEN_HERE``, ``exampletokenvalue``, ``dummy``, ``changeme``,
  ``redacted``): :data:`WORDS`.

A keyboard's row is a placeholder even where its entropy is a random run's (``qwertyuiop…``
has sixteen distinct chars in sixteen): a person typed it. A random run of letters has a pair a step
apart about one time in six (a char's neighbours in the alphabet and on its row, and itself,
of 26), so one is called stepped (three pairs in four) about once in ten million at sixteen
chars, and less the longer it is (once in 10**13 at 32). One is worded (:data:`WORDS`)
one to three times in a hundred thousand (measured, 16 to 64 chars).

Leaf module: the rules that judge a value (``families``' checks) import it, and it imports none
of them.
"""

from __future__ import annotations

import re
from itertools import pairwise

from elision._lazyre import lazy_compile
from elision.redact.kept import kept

#: A keyboard's rows (QWERTY), each a run a finger walks: neighbours in one are a step apart.
ROWS = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm")
#: The share of neighbouring pairs a step apart from which a value is a typed run.
STEPPED_SHARE = 0.75
#: A unit repeated at least this many times is a placeholder's (``abcabcabc``), and the
#: longest unit looked for: each costs a compare of the value in C, so a long value costs a
#: bounded number of its length (a longer unit is a word's, :data:`WORDS`).
LEAST_REPEATS = 3
LONGEST_UNIT = 16
#: Words that say a value is no credential, read anywhere in the value folded to lower case.
#: Those of four letters (:data:`_WHOLE_WORDS`) only where they are one of the value's words
#: whole, written as a word is (lower, title or upper case: ``YOUR_TOKEN_HERE``,
#: ``MyTestToken``): read anywhere, one falls in a random run too often.
WORDS = (
    "example", "sample", "dummy", "changeme", "redacted", "placeholder", "replace", "insert",
    "yourtoken", "yourkey", "yoursecret", "goeshere", "tokenhere", "keyhere", "notreal",
    "notarealtoken", "invalid", "lorem", "ipsum", "foobar", "masked", "hidden",
)
#: The longest value its words are read in: a person's placeholder is short, and a long random
#: run holds such words by chance (a MB of random letters holds dozens); a longer one is
#: judged by its shape alone.
WORDED_LONGEST = 64
_WHOLE_WORDS = frozenset({"your", "here", "fake", "test", "demo", "mock", "todo", "fixme"})
_SAYS = lazy_compile("|".join(WORDS))
_SAYS_AS_A_WORD = lazy_compile("|".join(sorted(_WHOLE_WORDS)))
#: A template's or a mask's whole form.
_TEMPLATE = lazy_compile(
    r"<[^<>]*>|\$\{[^}]*\}|\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|\$[A-Z_][A-Z0-9_]*|[*x•#._-]+",
    re.DOTALL | re.IGNORECASE,
)
#: Where a value's words meet: a separator, or a lower-case letter before a capital.
_WORD_EDGE = lazy_compile(r"[^A-Za-z]+|(?<=[a-z])(?=[A-Z])")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def _steps() -> frozenset[tuple[str, str]]:
    pairs = {(c, c) for c in (*_ALPHABET, *ROWS[0], *"*#._-")}
    for row in (*ROWS, _ALPHABET, "0123456789"):
        for a, b in pairwise(row):
            pairs |= {(a, b), (b, a)}
    return frozenset(pairs)


#: The pairs of chars a step apart (either way), lower case: the same char twice, neighbours
#: on a row or in order.
_STEP = _steps()


@kept
def placeholder(value: str) -> bool:
    """Whether ``value`` is a placeholder (any of the forms this module's doc lists), not a
    credential. Meant for a value as long as a token: a short one is read by the same tests,
    so two neighbours (``hi``) are a run."""
    v = value.strip()
    if not v or _TEMPLATE.fullmatch(v) is not None:
        return True
    low = v.lower()
    return stepped(low) or periodic(low) or _worded(v, low)


def stepped(value: str) -> bool:
    """Whether most of ``value``'s neighbouring chars (lower case) are a step apart: the same
    char, neighbours in the alphabet or the digits, or on a keyboard's row."""
    if len(value) < 2:
        return False
    pairs = len(value) - 1
    # Each pair's test in C (a map of a set's membership): no Python step a char, so a long
    # value costs its length in C. Its first pairs first: a random run has a pair a step apart
    # one time in six, so they tell most such runs from a typed one, the rest unread (a
    # generated Bearer token's 24 letters, a MB of lines of them: issue 23).
    if pairs > _PEEK and sum(map(_STEP.__contains__, pairwise(value[:_PEEK + 1]))) + (
            pairs - _PEEK) < STEPPED_SHARE * pairs:
        return False
    steps = sum(map(_STEP.__contains__, pairwise(value)))
    return steps >= STEPPED_SHARE * pairs


#: How many pairs :func:`stepped` reads first.
_PEEK = 8


def periodic(value: str) -> bool:
    """Whether ``value`` is a unit of :data:`LONGEST_UNIT` chars at most repeated
    :data:`LEAST_REPEATS` times or more (its last one may be cut short)."""
    if not value:
        return False
    # Only where the value's first char comes again may a unit end (found in C): a random
    # value is done with at the first look, mostly.
    longest = min(len(value) // LEAST_REPEATS, LONGEST_UNIT)
    unit = value.find(value[0], 1, longest + 1)
    while unit > 0:
        if value[unit:] == value[:-unit]:
            return True
        unit = value.find(value[0], unit + 1, longest + 1)
    return False


def _worded(value: str, low: str) -> bool:
    # One search in C each: a random value holds none, and is done with there.
    if len(value) > WORDED_LONGEST:
        return False
    if _SAYS.search(low) is not None:
        return True
    if _SAYS_AS_A_WORD.search(low) is None:
        return False
    words = {w.lower() for w in _WORD_EDGE.split(value)
             if w.islower() or w.istitle() or w.isupper()}
    return not _WHOLE_WORDS.isdisjoint(words)
