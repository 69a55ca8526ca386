"""The bounded memo the estimate and provenance remember with: the function's answers, computed once, memory bounded."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.core.memo import BoundedMemo


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=4), max_size=200), st.integers(1, 8))
def test_a_bounded_memo_answers_what_the_function_does_and_never_holds_more_than_its_limit(keys, limit):
    calls = []

    def compute(key: str) -> int:
        calls.append(key)
        return len(key) * 7 + sum(map(ord, key))

    memo = BoundedMemo(compute, limit)
    for key in keys:
        assert memo[key] == compute(key)
        calls.pop()  # (the check's own call)
        assert len(memo) <= limit
    assert len(calls) <= len(keys)


def test_a_key_seen_again_is_not_computed_again_until_the_memo_is_full():
    calls = []
    memo = BoundedMemo(lambda key: calls.append(key) or key.upper(), 3)
    assert [memo[k] for k in "abab"] == ["A", "B", "A", "B"]
    assert calls == ["a", "b"]
    memo["c"], memo["d"]  # the fourth key: the memo forgets a, b, c and keeps d
    assert len(memo) == 1 and list(map(memo.__getitem__, "ad")) == ["A", "D"]
    assert calls == ["a", "b", "c", "d", "a"]
