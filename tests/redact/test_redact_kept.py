"""A kept judgement answers as the judgement does, and holds no long string and no more than
its limit (it lives as long as the process). A full table is emptied and filled again: kept
until full and then left as it was, the first 4,096 distinct strings a process saw (one
document of distinct ids, in a proxy that runs for days) held every later one out, the names
that repeat on every line included (red before: the later string was judged each time)."""

from __future__ import annotations

from elision.redact import kept, walk


def test_a_kept_judgement_is_asked_once_a_short_string() -> None:
    asked: list[str] = []

    @kept.kept
    def judge(text: str) -> int:
        asked.append(text)
        return len(text)

    long = "x" * (kept.LONGEST + 1)
    assert [judge(t) for t in ("ab", "ab", long, long)] == [2, 2, len(long), len(long)]
    assert asked == ["ab", long, long]  # the long one is judged each time, not held


def test_a_kept_judgement_holds_no_more_than_its_limit() -> None:
    asked: list[str] = []

    @kept.kept
    def judge(text: str) -> str:
        asked.append(text)
        return text.upper()

    texts = [str(i) for i in range(kept.LIMIT + 10)]
    assert [judge(t) for t in texts] == [t.upper() for t in texts]
    assert [judge(t) for t in texts[-10:]] == [t.upper() for t in texts[-10:]]
    assert len(asked) == kept.LIMIT + 10  # the ten past the limit are kept (a new table)
    assert [judge(t) for t in texts[:10]] == [t.upper() for t in texts[:10]]
    assert len(asked) == kept.LIMIT + 20  # the first ten went with the full table
    table: dict[int, int] = {}
    for i in range(3 * kept.LIMIT):
        kept.keep(table, i, i)
        assert len(table) <= kept.LIMIT


def test_the_walks_key_tables_keep_a_later_key() -> None:
    walk._key_rule.clear()
    walk._key_inert.clear()
    for i in range(kept.LIMIT + 10):  # distinct ids, as one hostile document brings
        walk._key_rule_of(f"id_{i}")
        walk.names_inert({f"id_{i}": 1})
    walk._key_rule_of("db_password")
    walk.names_inert({"hostname": 1})
    assert "db_password" in walk._key_rule and "hostname" in walk._key_inert
    assert len(walk._key_rule) <= kept.LIMIT and len(walk._key_inert) <= kept.LIMIT
