"""Whether the name after a ``$`` (``$HOME``, ``${API_KEY}``, ``$(DB_PASSWORD)``) is a
variable's, or a generated secret that happens to open with a ``$``.

A variable's name is typed by a person: words (``DB_PASSWORD``, ``db_password``,
``dbPassword``, ``HTTPServerPassword``), each of a few letters at least, digits mostly at a
word's end (``DB_PASSWORD_2``, ``oauth2``). A generator's output is dice: short runs of
each case and digits among its letters (``Xk9fQ2mLp7RtZ4wB``), or runs of letters no word
spells (``qddmzlvk``). :func:`scrambled` reads those signs; ``generic.placeholder`` asks it
only of a name as long and as high in entropy as ``generic.opaque`` asks of a secret (a
shorter one, ``$HOME``, ``$dbPwd``, is a name whatever it looks like), and takes one of more
than :data:`LONGEST` chars for a secret outright.

Measured on random runs (20,000 a row, each as high in entropy as ``variable_name`` asks):
of letters of both cases and digits, 6 in 1,000 read as a name at 16 chars, 7 in 10,000 at
24 and none at 40; of one case and digits (hex, base32), 3 to 15 in 100 at 16 and 4 in
1,000 at most at 32; of letters alone, 1 to 5 in 100 at any length (no digit to tell).

Leaf module: it imports nothing of the rules.
"""

from __future__ import annotations

import re

from elision._lazyre import lazy_compile

#: The longest name read as a variable's: a longer one is a generated secret's.
LONGEST = 64
#: A name's words are this many chars long on average at least, where they are not parted
#: by ``_``: a random run's are under 2.5.
WORD_CHARS = 3.5
#: A part of a name (between ``_``) shorter than this is not judged by its words' length.
SHORTEST_PART = 8
#: A word of a name: a capital and small letters, capitals alone (not the one that opens the
#: next word: ``HTTPServer`` is ``HTTP`` and ``Server``), or digits.
_WORD = lazy_compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
#: Digits with a letter on each side: a name has one such run at most (``x509Cert``,
#: ``K8S_TOKEN``), a generated secret several.
_DIGITS_INSIDE = lazy_compile(r"(?<=[A-Za-z])[0-9]+(?=[A-Za-z])")
#: Six consonants in a row (``y`` a vowel): no word spells it (``passphrase`` has five;
#: ``dbDbProd`` is words, each read alone).
_CONSONANTS = lazy_compile(r"[b-df-hj-np-tv-xz]{6}", re.IGNORECASE)
#: A version that ends a part of a name (``HttpV2``, ``apiV10``, ``client_v3``): its ``v`` is
#: the digits' word, no word of its own (``$DevProdOldHttpV2`` read as five short words).
_VERSION = lazy_compile(r"(?<=[A-Za-z])[Vv][0-9]+$")


def scrambled(name: str) -> bool:
    """Whether ``name`` (an identifier: letters, digits, ``_``) reads as a generator's output
    rather than a person's words: digits inside its letters twice or more, a word of six
    consonants in a row, or, in its parts between ``_`` of more than one word and
    :data:`SHORTEST_PART` chars at least (camel case, or dice), words shorter than
    :data:`WORD_CHARS` on average (digits that end a part are its last word's:
    ``dbPassword2``; a version that ends one, ``HttpV2``, is no word)."""
    if len(_DIGITS_INSIDE.findall(name)) >= 2:
        return True
    count = length = 0
    for piece in name.split("_"):
        piece = _VERSION.sub("", piece)
        found = _WORD.findall(piece)
        if any(_CONSONANTS.search(word) for word in found):
            return True
        words = len(found) - (len(found) > 1 and found[-1].isdigit())
        # A word alone between ``_`` is a word, however short (``DB_ID``), and so is a short
        # part (``K8S``, ``EC2``): a generator's run is long.
        if words > 1 and len(piece) >= SHORTEST_PART:
            count += words
            length += len(piece)
    return count * WORD_CHARS > length
