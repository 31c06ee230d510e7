"""Where the credential of an ``Authorization:`` header's value is, read as RFC 7235 writes
one: an optional scheme, then a token (``token68``) or a list of ``name=value`` parameters.

What follows the credential on its line is a message's, and is shown: a log writes
``Authorization: <value> (expired)``, a trace ``authorization: <value> ghp_…``. Its value was
read to the line's end with the line's first word taken for a scheme, so a raw value followed
by anything (``Authorization: a8F3kQ9z… trailing words``) was shown as the "scheme" and the
words after it withheld in its place.

A word is a scheme when it is a scheme's name (:data:`KNOWN_SCHEMES`), or when, unknown, it
is a word (letters, ``-`` and ``_``, few changes of case) followed by a value that is not a
word as well. A word with a digit in it that names no scheme is the credential itself; so is
a run of letters whose case changes often (``qfjjDuTBJLrkDgNRWR``), or one followed by
nothing. An unknown word followed by another plain word (``Custom abcdefgh``, or a raw
letters-only credential and the message's first word) cannot be told apart: both are
withheld (fail closed).

A run of letters alone that looks generated (:func:`generated`: as long and as high in
entropy as ``generic.opaque`` asks of a value, which asks a digit too) is the credential
where what follows it is no auth-param list (``Authorization: qwertyuiopasdfgh 2024-01-01``
showed the run as the "scheme" and withheld the date in its place); what follows is
withheld with it where it may be a credential too (letters and digits, or a generated run:
which of the two it is cannot be told). An ISO 8601 timestamp is neither
(``Authorization: qwertyuiopasdfgh 2024-01-01T10:00:00Z`` withheld the timestamp a log writes
after its header, for its ``T`` and ``Z``: :data:`TIMESTAMP`).
"""

from __future__ import annotations

from itertools import pairwise

from elision._lazyre import lazy_compile
from elision.redact.families import entropy
from elision.redact.kept import LONGEST as KEPT_LONGEST
from elision.redact.kept import keep, kept

#: Schemes read as one whatever follows them, lower-cased: IANA's registry, and the ones
#: vendors' APIs document (Discord's ``Bot``, Okta's ``SSWS``, AWS's and Google's signing
#: algorithms, Azure's ``SharedKey``), those with a digit among them (a digit makes an
#: unknown word a credential).
KNOWN_SCHEMES = frozenset({
    "basic", "bearer", "digest", "hoba", "mutual", "negotiate", "ntlm", "kerberos", "oauth",
    "oauth2", "scram-sha-1", "scram-sha-256", "vapid", "dpop", "gnap", "privatetoken",
    "concealed", "token", "apikey", "api-key", "api-token", "key", "jwt", "bot", "aws",
    "aws4-hmac-sha256", "aws4-ecdsa-p256-sha256", "goog4-hmac-sha256", "goog4-rsa-sha256",
    "sharedkey", "sharedkeylite", "sharedaccesssignature", "googlelogin", "mac", "hawk",
    "splunk", "ssws", "geniekey", "klaviyo-api-key", "zoho-oauthtoken", "client-id",
    "signature", "sso-key", "sentry", "secret", "macaroon", "dsn",
})
#: The longest value read: a credential that reaches it is withheld to its line's end unread
#: (fail closed), so each name on a line of them reads this much at most.
LONGEST = 8192
#: A scheme-like word and the spacing after it.
_WORD = lazy_compile(r"([A-Za-z][A-Za-z0-9_-]{0,63})[ \t]+")
#: A credential written as one run: anything but spacing, a comma (a list's), a quote or a
#: backslash (a string around the header ends there); a run goes on past a ``\/`` (a JSON
#: writer's ``/``). One char class, not an alternation: a repeat of a group kept a state a
#: char on the regex engine's stack (1 MB read at a long run's 8 KB).
_RUN = lazy_compile(r"""[^\s,"'\\]*""")
#: An auth-param's name and its ``=`` (``realm="x"``, ``Credential=AKIA…/s3/aws4_request``).
_PARAM_NAME = lazy_compile(r"[A-Za-z0-9!#$%&*+.^_`|~-]{1,256}[ \t]*=[ \t]*")
#: What a quoted auth-param's value holds up to its next quote, backslash or line break.
_IN_QUOTES = lazy_compile(r'[^"\\\r\n]*')
_LIST_SEP = lazy_compile(r"[ \t]*,[ \t]*")
#: A char that closes what the header was written in (``(Authorization: …)``) when its opener
#: is not in the token, and a statement's end: not the credential's.
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<", ";": ""}
#: The most changes from a lower-case letter to an upper-case one a scheme's name has
#: (``SharedAccessSignature``: two); a random run of letters has one in four chars or so.
_MOST_HUMPS = 2
#: How long a run of letters alone is, and how many bits of entropy a char it holds, where it
#: looks generated: what ``generic.opaque`` asks of a value (which asks a digit as well).
_GENERATED_LEAST = 16
_GENERATED_BITS = 3.0
_DIGITS = frozenset("0123456789")
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
#: What may stand around a word that follows a credential (``(expired)``, ``ok.``).
_EDGES = ".,;:!?'\"()[]<>"
#: An ISO 8601 timestamp as RFC 3339 and logs write one: a date, ``T``, a time with its
#: fraction and zone, extended (``2024-01-01T10:00:00.123+02:00``) or basic
#: (``20240101T100000Z``, AWS's ``X-Amz-Date``), or a time alone in a zone (``10:00:00Z``).
#: No credential is written so (its digits say a date); what follows it on its run is a
#: credential's again (``fullmatch`` only).
TIMESTAMP = lazy_compile(
    r"(?:(?:[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt])?[0-9]{2}:[0-9]{2}(?::[0-9]{2})?"
    r"|[0-9]{8}[Tt][0-9]{6})"
    r"(?:[.,][0-9]{1,9})?(?:[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?"
)


def credential(text: str, at: int, limit: int) -> tuple[int, int] | None:
    """Where the credential of the header value written at ``at`` (its scheme past) starts and
    ends, read no further than ``limit``; ``None`` for a scheme with nothing after it.

    The answer is kept by the value's first :data:`~elision.redact.kept.LONGEST` chars (all of
    them up to ``limit`` where it is nearer: a window shorter than that is the whole value,
    one as long may be cut) where its reading lay inside them
    (:data:`_READ_PAST`): a log's headers repeat, and reading one was most of judging a MB of
    ``authorization: qwertyuiopasdfgh 2024-01-01`` headers, six regex calls each (issue 23)."""
    window = text[at:min(limit, at + KEPT_LONGEST)]
    if limit - at < KEPT_LONGEST:
        # The reading may look a few chars past ``limit`` (a quote after an auth-param's
        # name, a quoted value's closing): the same value before a JSON string's closing
        # quote and before a line's end read otherwise, so those chars are the key's too
        # (the review of the sixth session's merge: `Token a=b, c= ` was shown once a line
        # had read it first).
        window = f"{window}\0{text[limit:limit + _PAST_LIMIT]}"
    got = _READ.get(window)
    if got is not None:
        return at + got[0], at + got[1]
    found = credential_now(text, at, limit)
    if found is None:
        return None
    if limit - at >= KEPT_LONGEST:
        # Read to the window's end at most: one reaching it is not kept (a long run after
        # each of many headers is not read again at each).
        past = _READ_PAST.match(text, found[1], at + KEPT_LONGEST)
        if past is None or past.end() + _READ_CHARS > at + KEPT_LONGEST:
            return found
    keep(_READ, window, (found[0] - at, found[1] - at))
    return found


#: :func:`credential`'s answers, as offsets into the value, by its first chars.
_READ: dict[str, tuple[int, int]] = {}
#: What :func:`credential_now` may look at past the end of the credential it found, and
#: :data:`_READ_CHARS` chars more (a superset: no reading goes further): where a generated
#: run is the credential, the spacing and the run after it that was judged with it; a run's
#: closers trimmed off its end (:data:`_CLOSERS`, run chars); the spacing after it, a list's
#: comma and spacing, the next auth-param's name (its first 256 chars), spacing, ``=`` and
#: spacing; and the char a run stops at, a quote's two chars, a ``\\/``'s two.
_READ_PAST = lazy_compile(
    r"""[ \t]*[^\s,"'\\]*(?:\\/[^\s,"'\\]*)*[ \t]*(?:,[ \t]*)?"""
    r"[A-Za-z0-9!#$%&*+.^_`|~-]{0,256}[ \t]*(?:=[ \t]*)?")
_READ_CHARS = 3
#: The most chars past its ``limit`` a reading looks at (a quote's and an escaped quote's
#: chars after an auth-param's name at the limit), with a margin.
_PAST_LIMIT = 8


def credential_now(text: str, at: int, limit: int) -> tuple[int, int] | None:
    """:func:`credential`, its answer not kept: read from ``text``."""
    word = _WORD.match(text, at, limit)
    if word is None:
        return _value(text, at, limit)
    name = word[1]
    known = name.lower() in KNOWN_SCHEMES
    if not (known or _word_like(name)):
        return at, word.end(1)  # the word is the credential; what follows is shown
    after = _value(text, word.end(), limit)
    if after is None:  # a word alone: a scheme's with nothing after it, or the credential
        return None if known else (at, word.end(1))
    if known:
        return after
    value = text[after[0]:after[1]]
    if value.isalpha():
        return at, after[1]  # a word and a word: both withheld
    if generated(name) and _PARAM_NAME.match(value) is None:
        # A generated run before a value that is no auth-param list: the run is the
        # credential, and the value with it where it may be one too.
        return (at, after[1]) if _may_be_credential(value) else (at, word.end(1))
    return after


def scheme(name: str, after: str) -> bool | None:
    """Whether the word ``name``, followed by the value ``after``, is the value's scheme
    (``True``) or its credential (``False``, what follows it shown); ``None`` where it cannot
    be told: an unknown word before a plain word (``Custom abcdefgh``, or a raw credential of
    letters and the message's first word). :func:`credential` tells the same inline."""
    if name.lower() in KNOWN_SCHEMES:
        return True
    if not _word_like(name):
        return False
    if after.isalpha():
        return None
    if generated(name) and _PARAM_NAME.match(after) is None:
        return None if _may_be_credential(after) else False
    return True


@kept
def generated(name: str) -> bool:
    """Whether ``name``, a run of letters alone, looks generated rather than named: as long
    and as high in entropy as ``generic.opaque`` asks of a value (a known scheme's name is
    never asked). Kept: a log's every line has its header."""
    return (len(name) >= _GENERATED_LEAST and name.isascii() and name.isalpha()
            and entropy(name) >= _GENERATED_BITS)


def _may_be_credential(value: str) -> bool:
    """Whether ``value``, after a generated run, may be a credential too: letters and digits
    both, or a generated run itself. A date, a time, a status or a word in brackets is not
    (``2024-01-01``, ``12:00:01``, ``(expired)``), nor a timestamp (:data:`TIMESTAMP`). Told
    by set tests in C: a log's every line has its date (a generator's step a char was a
    third of judging one); a timestamp's match only where both are in it."""
    if not _DIGITS.isdisjoint(value):
        return not _LETTERS.isdisjoint(value) and TIMESTAMP.fullmatch(
            value.strip(_EDGES)) is None
    return generated(value.strip(_EDGES))


def timestamp_at(text: str, at: int) -> int:
    """Where the timestamp (:data:`TIMESTAMP`) written at ``at`` ends, or -1 for none there: a
    run that goes on past it is none (``2024-01-01T10:00:00Zab12…``). What reads a value up
    to a ``:`` (a path's header) reads one whole so."""
    stamp = TIMESTAMP.match(text, at)
    if stamp is None:
        return -1
    end = stamp.end()
    return end if end == len(text) or text[end].isspace() or text[end] in _EDGES else -1


@kept
def _word_like(name: str) -> bool:
    """Whether ``name``, no known scheme's, may be an unknown one: letters, ``-`` and ``_``,
    its case changing as a word's does. Kept: a log's every line has its header, and the count
    of its humps was a generator's step a char (a MB of ``authorization: <letters> <date>``
    headers, 25,000 of them, spent a fifth of its time here; issue 23)."""
    if not name.replace("-", "").replace("_", "").isalpha():
        return False
    humps = sum(1 for a, b in pairwise(name) if a.islower() and b.isupper())
    return humps <= _MOST_HUMPS


def _value(text: str, at: int, limit: int) -> tuple[int, int] | None:
    """The token or the list of auth-params at ``at``, read no further than ``limit``."""
    end = _param(text, at, limit)
    if end is not None:
        while True:  # each param read once: a list costs its length
            sep = _LIST_SEP.match(text, end, limit)
            nxt = None if sep is None else _param(text, sep.end(), limit)
            if nxt is None:
                return at, end
            end = nxt
    end = _run(text, at, limit)
    if end == at:
        return None
    while end - at > 1 and (opener := _CLOSERS.get(text[end - 1])) is not None and (
            not opener or opener not in text[at:end]):
        end -= 1
    return at, end


def _param(text: str, at: int, limit: int) -> int | None:
    """Where the auth-param at ``at`` ends, or ``None`` for none there."""
    name = _PARAM_NAME.match(text, at, limit)
    if name is None:
        return None
    if text.startswith(('"', '\\"'), name.end()):
        return _quoted(text, name.end(), limit)
    end = _run(text, name.end(), limit)
    return None if end == name.end() else end


def _run(text: str, at: int, limit: int) -> int:
    """Where the run at ``at`` ends (``at`` for none), read no further than ``limit``."""
    end = at
    while True:
        run = _RUN.match(text, end, limit)
        assert run is not None  # it matches the empty string
        end = run.end()
        if end + 2 > limit or not text.startswith("\\/", end):
            return end
        end += 2


def _quoted(text: str, at: int, limit: int) -> int:
    """Where the quoted value at ``at`` ends, past its closing quote: a quote as written, a
    backslash and the char after it (RFC 7230's quoted-pair) inside it; or ``\\"`` a level
    down (a header in a JSON string in a text), ``\\\\\\"`` (its quoted-pair) inside it. One
    that does not close on its line reads to ``limit`` (fail closed)."""
    escaped = text.startswith("\\", at)
    pos = at + 1 + escaped
    while pos < limit:
        run = _IN_QUOTES.match(text, pos, limit)
        assert run is not None  # it matches the empty string
        pos = run.end()
        if pos >= limit:
            break
        char = text[pos]
        if char == '"':
            return limit if escaped else pos + 1  # a bare quote a level down ends its string
        if char != "\\":
            return limit  # a line break
        if escaped and text.startswith('\\"', pos):
            return pos + 2
        pos += 4 if escaped and text.startswith('\\\\\\"', pos) else 2
    return limit
