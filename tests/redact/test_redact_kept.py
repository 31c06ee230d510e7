"""A kept judgement answers as the judgement does, and holds no long string and no more than
its limit (it lives as long as the process)."""

from __future__ import annotations

from elision.redact import kept


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
    assert len(asked) == kept.LIMIT + 20  # the ten past the limit were judged again
