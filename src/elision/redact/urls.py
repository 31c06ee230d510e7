"""Signed URLs and URLs that carry credentials, found anywhere in any text.

A URL is withheld whole when one of its query parameters is a signature or a credential: the
host and path alone would invite the model to guess a fetch, and elision never fetches an
address taken from a result anyway. A password in a plain URL's userinfo is withheld alone
(``postgres://app:[credential withheld: url-userinfo]@db/app``) when nothing else in the URL is
a credential: the scheme, user and host say which database, not how to get in. What comes
before a URL's scheme in the same token (``DATABASE_URL=``, ``link=``) is never withheld.
Ordinary URLs (pagination tokens included: ``pageToken`` is not ``token``) are left exactly as
they are.

Parameters are recognised in every spelling a tool is likely to emit: any letter case, ``&``
written ``\\u0026`` (JSON-escaped text) or ``&amp;`` (HTML), and percent-encoded once or twice
(a signed URL inside a redirect's ``next=`` parameter). Nothing here opens a connection or
resolves a name: the only input is the text.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from elision._lazyre import lazy_compile
from elision.redact.families import enough
from elision.redact.folding import holds_lowered
from elision.redact.generic import opaque
from elision.redact.kept import LONGEST, keep, kept
from elision.redact.rules import Span, make_span, names_behind

# A separator before a parameter name, in plain, JSON-escaped, HTML and percent-encoded forms.
_SEP = r"(?:[?&;#]|%3f|%26|%3b|%253f|%2526|\\u0026|&amp;)"
_NAMES = (
    "x-amz-signature", "x-amz-credential", "x-amz-security-token", "awsaccesskeyid",
    "signature", "x-goog-signature", "x-goog-credential", "googleaccessid", "sig",
    "key-pair-id", "token", "access_token", "id_token", "refresh_token", "auth_token",
    "session_token", "api_key", "apikey", "api-key", "client_secret", "secret", "password",
    "passwd", "pass", "pwd", "code",
)
# A name followed by "=", with no separator asked for before it: a name may itself be
# percent-encoded (X%2DAmz%2DSignature), so which parameter it really is is decided by
# classify_url on the decoded token. "pageToken=" is a candidate here and ordinary there.
# Each pattern opens with the literal "=" or "%" and checks the names behind it: the regex
# engine searches for a leading literal quickly, where an alternation of names that opens
# with a letter is tried at every position (a thousand times slower on a line of prose).
#: A bare ``key`` (no name char before it: ``monkey=``, ``sort_key=`` are none), only with a
#: value of the fewest chars :func:`_generated_key` takes (an escape only shortens a value as
#: read): ``?key=id`` on each URL of a log, each a token read and classified, was 3x the
#: URLs' redaction. Told in the same pass, behind its ``=``.
_BARE_KEY = (r"""(?<=key=)(?:(?<![A-Za-z0-9_.-]key=)|(?<=\\u0026key=)|(?<=%26key=)"""
             r"""|(?<=%3fkey=))(?=[^&;#?\s"'<>]{16})""")
_TRIGGERS = (
    lazy_compile("=(?:" + names_behind(list(_NAMES), "=") + "|" + _BARE_KEY + ")",
                 re.IGNORECASE),
    lazy_compile(
        "%(?:3d|253d)(?:" + names_behind(list(_NAMES), "%3d") + "|"
        + names_behind(list(_NAMES), "%253d") + ")",
        re.IGNORECASE,
    ),
)
# Anchored on the "://" rather than the scheme: a pattern that starts with a letter class
# is tried at every letter of the text.
# A password may hold a "'" (RFC 3986 allows it in userinfo); a user name may not, and in a
# URL that a "'" opens, the quote closes it (find_signed_urls).
_USERINFO = lazy_compile(
    r"(?::\\*/\\*/|%3a%2f%2f)(?:[^\s/?#@\"'<>]{0,256}?(?::|%3a)[^\s/?#@\"<>]{1,256}?"
    r"|[a-z0-9]{16,256})(?:@|%40)",
    re.IGNORECASE,
)
# Its "/"s may be JSON-escaped at any depth (a log line of JSON, JSON-in-JSON): read as the
# "\/"s the userinfo pattern reads, they hid a hook from the rules (the orjson spelling too).
_SLACK_HOOK = lazy_compile(
    r"hooks\.slack\.com\\*/(?:services|workflows)\\*/[A-Za-z0-9/_\\-]{20,}", re.I
)

_LEFT_STOP = frozenset(" \t\r\n\f\v\"'<>`([{|")
_RIGHT_STOP = frozenset(" \t\r\n\f\v\"'<>`)]}|")
_TRAILING = ".,;:!?\\"

_GENERIC = frozenset({
    "token", "access_token", "id_token", "refresh_token", "auth_token", "session_token",
    "api_key", "apikey", "api-key", "client_secret", "secret", "password", "passwd", "pass",
    "pwd",
})
_AZURE_COMPANIONS = frozenset({"sv", "se", "sp", "spr", "srt", "ss", "st", "sr", "skoid"})
_PAIR = lazy_compile(r"[?&;#]([a-z0-9_.-]+)=([^&;#?\s]*)")
_USERINFO_PLAIN = lazy_compile(r"[a-z][a-z0-9+.-]*://[^/?#@\s]*:[^/?#@\s]+@")
#: A user alone, where a token may be (``https://<token>@github.com/…``): group 1.
_USERINFO_USER = lazy_compile(r"[A-Za-z][A-Za-z0-9+.-]*://([A-Za-z0-9]{16,256})@")
#: Where a URL starts: its scheme, plain or JSON-escaped (``:\\/\\/``, at any depth of
#: JSON-in-JSON ``:\\\\\\/\\\\\\/`` and so on).
_SCHEME = lazy_compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:\\*/\\*/")
#: A "/" JSON-escaped at any depth of JSON-in-JSON (``\\/``, ``\\\\\\/``, ...): a URL's "/".
_ESCAPED_SLASH = lazy_compile(r"\\+/")
#: A plain ``scheme://user:password@``: group 1 is the password.
_USERINFO_PASSWORD = lazy_compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:]*:([^/?#@\s]+)@")
#: A value this stage already withheld (its stub, lower-cased): redaction is idempotent.
_STUB_HEADS = ("[credential", "[withheld", "[ref_")
#: An OAuth authorization code is long and random; ``?code=404`` is a status, not a secret.
_MIN_CODE = 10


#: A char each of the URL rules below needs (``=``, ``%``, ``@``, the dots of
#: ``hooks.slack.com``): ASCII punctuation, which no other char lower-cases to.
_MARKS = ("=", "%", "@", ".")


def find_signed_urls(text: str) -> list[Span]:
    """Every credential-bearing URL in ``text`` as a span over the whole URL."""
    spans, shift = signed_url_bounds(text)
    return spans_of(spans, shift) if spans else []


def spans_of(bounds: dict[int, str], shift: int) -> list[Span]:
    """The spans whose bounds :func:`signed_url_bounds` gave, in order."""
    mask = (1 << shift) - 1
    # Each span made in C (a namedtuple's __new__ is a Python call: 37,449 a MB of URL users).
    return [make_span((key >> shift, key & mask, rule)) for key, rule in bounds.items()]


def signed_url_bounds(text: str) -> tuple[dict[int, str], int]:
    """The credential-bearing URLs of ``text``: each span's rule by its bounds, in the order
    they were found, a span's start shifted left by the second value and its end or'ed in.
    One int a span (32 bytes), not a tuple of two and a span (190 with their ints): a long
    line's URLs are all kept while it is read (a MB of URL users on one line, 37,449 spans:
    their table and their list were 6.5x the text at the peak of ``shape()``, issue 23)."""
    spans: dict[int, str] = {}
    shift = len(text).bit_length()
    if not any(mark in text for mark in _MARKS):
        return spans, shift  # no lower-cased copy of a text none of the URL rules can start in
    patterns = []
    # No char lower-cases to ASCII punctuation (_MARKS): the text is asked as it is, and only
    # the hook's host lower-cased, a window at a time (a lowered copy of a 1 MB line was 1x).
    if "=" in text and _urlish(text, 0, len(text)):
        # Each token it finds is classified, and a token holds a credential only where the
        # text has a query, an escape or a scheme somewhere (a dense .env or log has none).
        patterns.append(_TRIGGERS[0])
    percent = "%" in text
    if percent:  # "%3d", or "%253d" encoded twice
        patterns.append(_TRIGGERS[1])
    if "@" in text or (percent and "%40" in text):  # a "%40" found by its "%" first, in C
        patterns.append(_USERINFO)
    if "." in text and holds_lowered(text, "hooks.slack.com"):  # no char lowers to a "."
        patterns.append(_SLACK_HOOK)
    for pattern in patterns:
        covered = -1
        starts = _TokenStarts(text)
        userinfo = pattern is _USERINFO
        for match in pattern.finditer(text):
            at = match.start()
            if at < covered:
                continue  # in the token just looked at: keeps a huge one-token text linear
            token = starts.at(at)
            if userinfo and "'" in match.group() and _quoted(text, token):
                continue  # the quote closes a single-quoted URL: this is no password
            start, end, tail = _token_bounds(text, token, match.end())
            covered = end
            if pattern is _SLACK_HOOK and (
                    (hook_end := _hooks_end(text, match, end)) < end
                    or start << shift | end in spans):
                # The hooks end where the last one's path does: what the token holds after
                # it (``:`` and a DSN, read as one URL) is judged by its own rules, and a
                # whole-URL span over both yielded to the DSN's password (the hook was shown).
                # A token another rule took whole is narrowed so too: a connection string's
                # ``;Password=…;`` before the hook made it a parameter's URL, which yielded
                # to that password (the hook was shown).
                start = _narrowed(text, start, end, match.start(), "slack-webhook-url")[0]
                spans.setdefault(start << shift | hook_end, "slack-webhook-url")
                continue
            if start << shift | end in spans:
                continue
            if pattern is _SLACK_HOOK:
                rule: str | None = "slack-webhook-url"
            elif pattern is _TRIGGERS[0] and not _urlish(text, start, end):
                rule = None  # no query, no escape, no scheme: classify_url finds nothing
            else:
                # A userinfo's match holds its "://" (or an escape of it: a "\\" or a "%"), a
                # percent trigger's its "%": the token is urlish, and no search need say so (a
                # tenth of judging a MB of URL users, issue 23).
                rule = classify_url(text[start:end])
            if rule is not None:
                token_end = end
                start, end = _narrowed(text, start, end, at, rule)
                if end == token_end and tail:  # no punctuation after it: none goes with it
                    end += _secret_tail(text, end, tail)
                spans[start << shift | end] = rule
    return spans, shift


def _hooks_end(text: str, match: re.Match[str], end: int) -> int:
    """Where the last Slack hook of the token that ``match`` opens a hook in ends (before
    ``end``, the token's): hooks glued to each other are one span, read once a token."""
    last = match.end()
    for more in _SLACK_HOOK.finditer(text, last, end):
        last = more.end()
    return last


#: What a token must hold for :func:`classify_url` to find a credential in it: a parameter's
#: separator (``?&;#``, ``&amp;``), an escape that may spell one (``%26``, ``\\u0026``), or a
#: scheme's ``://`` for a userinfo (``:\\/\\/`` holds a backslash). A candidate in prose
#: (``password=hunter2``) is told in one search, not normalized and parsed.
_URLISH = lazy_compile(r"[?&;#%\\]")


#: :data:`_URLISH`'s chars, each found alone over a long range.
_URLISH_CHARS = "?&;#%\\"
#: Past this many chars a range is asked with a ``find`` a char (``memchr``, in C), not the
#: regex: a char class is tried a char at a time, 2.2 ms a MB of ``url-token-closers``' one
#: line, where the six finds take 0.06 ms (issue 23).
_FIND_ABOVE = 1024


def _urlish(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds what :data:`_URLISH` says (a char class alone, which
    the regex engine scans for in a tight loop, and a ``find``: an alternation of the two was
    tried at every position, ten times slower). A ``://`` is looked for only where a ``:`` is
    (one byte's search, where the three chars' is ten times slower)."""
    if end - start > _FIND_ABOVE:
        if any(text.find(char, start, end) >= 0 for char in _URLISH_CHARS):
            return True
    elif _URLISH.search(text, start, end) is not None:
        return True
    return text.find(":", start, end) >= 0 and text.find("://", start, end) >= 0


#: From a position, through the last char that may open a token before a later one
#: (:data:`_LEFT_STOP`): greedy, so it ends just after the last.
_THROUGH_LEFT_STOP = lazy_compile("(?s).*[" + re.escape("".join(sorted(_LEFT_STOP))) + "]")
#: A run of chars that do not close a token (:data:`_RIGHT_STOP`).
_TOKEN_REST = lazy_compile("[^" + re.escape("".join(sorted(_RIGHT_STOP))) + "]*")


class _TokenStarts:
    """Where the token around a position starts, for positions that only grow: each char is
    read once however many candidates one token holds. A char loop back from each candidate
    read the whole of ``a=b)a=b)…`` at each ``=`` (``)`` closes a token but opens none): its
    length squared."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.read = 0  # chars before this were read
        self.start = 0  # where the token around ``read`` starts

    def at(self, pos: int) -> int:
        if pos < self.read:
            self.read = self.start = 0
        stop = _THROUGH_LEFT_STOP.match(self.text, self.read, pos)
        if stop is not None:
            self.start = stop.end()
        self.read = pos
        return self.start


def _quoted(text: str, start: int) -> bool:
    """Whether the URL whose token starts at ``start`` is opened by a ``'``."""
    return start > 0 and text[start - 1] == "'"


def _narrowed(text: str, start: int, end: int, trigger: int, rule: str) -> tuple[int, int]:
    """The part of the token ``text[start:end]`` that must go: from the URL's scheme on (a
    ``NAME=`` before it stays), and for a password in the userinfo of a URL that carries
    nothing else, the password alone (scheme, user and host stay).

    A short token's answer is kept, as its place in the token: it is read from the token, its
    trigger's place and the char before it (the scheme's look-behind) alone, and a log's
    URLs repeat (four regex calls and up to two classifications a URL were a third of
    judging a MB of the same URL with a token for its user, issue 23)."""
    if end - start > LONGEST:
        return _narrowed_now(text, start, end, trigger, rule)
    key = (text[start - 1:end] if start else text[:end], start == 0, trigger - start, rule)
    got = _NARROWED.get(key)
    if got is None:
        a, b = _narrowed_now(text, start, end, trigger, rule)
        got = (a - start, b - start)
        keep(_NARROWED, key, got)
    return start + got[0], start + got[1]


#: :func:`_narrowed`'s answers for short tokens, as offsets into them.
_NARROWED: dict[tuple[str, bool, int, str], tuple[int, int]] = {}


def _narrowed_now(
    text: str, start: int, end: int, trigger: int, rule: str,
) -> tuple[int, int]:
    scheme = _SCHEME.search(text, start, end)
    # A scheme at the token's start narrows nothing: the token was just classified as ``rule``.
    if scheme is not None and start < scheme.start() <= trigger:
        narrowed = text[scheme.start():end]
        if rule == "slack-webhook-url" or classify_url(narrowed) == rule:
            start = scheme.start()
    if rule != "url-userinfo":
        return start, end
    userinfo = _USERINFO_PASSWORD.match(text, start, end) or _USERINFO_USER.match(
        text, start, end)
    if userinfo is None:
        return start, end
    pw_start, pw_end = userinfo.span(1)
    if classify_url(text[start:pw_start] + text[pw_end:end]) is not None:
        return start, end  # the rest holds a credential too: the URL goes whole
    return pw_start, pw_end


def _generated(user: str) -> bool:
    """A user's name that looks generated, as a weak name's value must (``generic.opaque``):
    letters and digits both, 3 bits of entropy a char (``alice``, ``deploybot`` are names)."""
    if user.isascii() and user.isalnum():
        # Letters and digits alone (what _USERINFO_USER takes): it holds a digit unless all are
        # letters, a letter unless all are digits, each told in C where a generator's step a
        # char was a sixth of judging a MB of distinct users (issue 23).
        mixed = not user.isalpha() and not user.isdigit()
    else:
        mixed = any(c.isdigit() for c in user) and any(c.isalpha() for c in user)
    # Most users are told by their length and distinct chars alone (families.enough).
    return mixed and enough(3.0, user)


@kept
def classify_url(url: str) -> str | None:
    """The rule id a URL is withheld under, or ``None`` for an ordinary URL."""
    norm = _normalize(url)
    params: dict[str, str] = {}
    for name, value in _PAIR.findall(norm):
        if value and name not in params and not value.startswith(_STUB_HEADS) and (
            "<" not in value  # a template: ?access_token=<token>
        ):
            params[name] = value
    if {"x-amz-signature", "x-amz-credential", "x-amz-security-token"} & params.keys():
        return "aws-sigv4-url"
    if "awsaccesskeyid" in params and "signature" in params:
        return "aws-sigv2-url"
    if {"x-goog-signature", "x-goog-credential", "googleaccessid"} & params.keys():
        return "gcs-signed-url"
    if "sig" in params and _AZURE_COMPANIONS & params.keys():
        return "azure-sas-url"
    if "key-pair-id" in params and ("signature" in params or "policy" in params):
        return "cloudfront-signed-url"
    if _USERINFO_PLAIN.search(norm):
        return "url-userinfo"
    # Judged as written (lower-cased, a mixed-case token loses entropy); escaped, as read.
    user = _USERINFO_USER.search(url) or _USERINFO_USER.search(norm)
    if user is not None and _generated(user.group(1)):
        return "url-userinfo"
    if "signature" in params or "sig" in params:
        return "signed-url"
    if _GENERIC & params.keys() or len(params.get("code", "")) >= _MIN_CODE:
        return "credential-param-url"
    if "key" in params and _generated_key(params["key"]):
        return "credential-param-url"
    # A parameter's value that is itself a query's pair, decoded (``?next=key%3DS``: the
    # pair a redirect hands on; ``?next=%2Fv1%3Fkey%3DS`` is a pair of the query above).
    inner = _INNER_KEY.search(norm)
    if inner is not None and _generated_key(inner.group(1)):
        return "credential-param-url"
    return None


#: A bare ``key`` pair as a parameter's whole value (normalized: decoded, lower-cased).
_INNER_KEY = lazy_compile(r"=key=([^&;#?\s]*)")


#: What splits a value into the parts of a name: a slug's, a path's, a cache key's.
_NAME_PARTS = lazy_compile(r"[-_.:/]")
#: The longest part a generated key has at least (Google's are 39 chars, one part or two).
_KEY_PART = 16


def _generated_key(value: str) -> bool:
    """Whether a bare ``key`` parameter's value is an API key (Google Maps' and other
    Google APIs' that are no ``AIza`` family's, a proxy's): one that looks generated
    (:func:`~elision.redact.generic.opaque`) with a part of :data:`_KEY_PART` chars or more.
    ``?key=value``, ``?key=id``, a slug (``my-project-name-2024``), a cache key
    (``user:123:profile``) or a UUID (an item's id, parts of 12 at most) stay shown. An
    ``AIza`` key is its family's (``google-api-key``): it withholds the key alone, the URL
    kept readable."""
    return (not value.startswith("aiza") and opaque(value)
            and max(map(len, _NAME_PARTS.split(value))) >= _KEY_PART)


def _normalize(url: str) -> str:
    text = url.replace("\\u0026", "&").replace("&amp;", "&")
    if "\\/" in text:
        text = _ESCAPED_SLASH.sub("/", text)
    for _ in range(3):  # a URL inside a redirect inside a redirect is percent-encoded twice
        if "%" not in text:
            break
        text = unquote(text)
    return text.lower()


def _token_bounds(text: str, start: int, end: int) -> tuple[int, int, int]:
    """The whitespace- or quote-delimited token that starts at ``start`` (from
    :class:`_TokenStarts`) and holds ``text[start:end]``, less the punctuation that may close
    a sentence, and how many chars of that punctuation there are."""
    rest = _TOKEN_REST.match(text, end)
    assert rest is not None  # it matches the empty string
    end = full = rest.end()
    while end > start and text[end - 1] in _TRAILING:
        end -= 1
    return start, end, full - end


def _secret_tail(text: str, end: int, tail: int) -> int:
    """How much of the punctuation after a withheld URL goes with it.

    The URL's last value may end in punctuation (a password ``secr3t!``), so only what closes
    a sentence without doubt stays outside: one final ``.``, ``,``, ``;`` or ``:``, and a
    backslash that escapes the quote after it (JSON written into a text).
    """
    stop = end + tail
    if tail and text[stop - 1] == "\\" and text[stop:stop + 1] in ("\"", "'"):
        stop -= 1
    if stop > end and text[stop - 1] in ".,;:":
        stop -= 1
    return stop - end
