"""The search player's line-up syntax (engines.core.search.search_policy, engines.core.lineup)."""
import pytest

from engines.core.lineup import LineupError, parse_policy_text, policy_row
from engines.core.search import SEARCH_HEAD, SEARCH_WEIGHTS, search_policy
from engines.core.spec import PolicyInfo

SCRIPTED = {"random": PolicyInfo("random", 0, "r"),
            "heuristic": PolicyInfo("heuristic", 1, "h", {"a": 2.0, "b": 3.0})}
POLICIES = {**SCRIPTED, "search": search_policy(2, SCRIPTED)}


def test_defaults_and_row_carry_the_rollout_weights():
    info, row = policy_row(POLICIES, "search(rollout=heuristic, iterations=64)")
    assert info.policy_id == 2 and len(SEARCH_WEIGHTS) == SEARCH_HEAD
    assert list(row[:SEARCH_HEAD]) == [64, 1, *list(SEARCH_WEIGHTS.values())[2:]]
    assert list(row[SEARCH_HEAD:SEARCH_HEAD + 2]) == [2.0, 3.0]
    assert parse_policy_text(POLICIES, "search(rollout=heuristic)").label == "search(rollout=heuristic)"
    assert parse_policy_text(POLICIES, "search").label == "search"


@pytest.mark.parametrize("text, why", [
    ("search(rollout=search)", "rollout must be one of random, heuristic"),
    ("search(rollout=3)", "rollout must be one of"),
    ("search(iterations=0)", "at least 1"),
    ("search(exploration=-1)", "at least 0"),
    ("search(depth=3)", "no weight 'depth'"),
])
def test_bad_search_weights_are_refused_with_the_reason(text, why):
    with pytest.raises(LineupError, match=why):
        parse_policy_text(POLICIES, text)


def test_policy_row_parses_once_but_never_hands_out_a_stale_or_shared_row():
    policies = {"heuristic": PolicyInfo("heuristic", 1, "h", {"a": 2.0, "b": 3.0})}
    info, row = policy_row(policies, "heuristic(b=5)")
    row[0] = 99.0                                   # the caller's row is its own
    again_info, again = policy_row(policies, "heuristic(b=5)")
    assert again_info is info and list(again[:2]) == [2.0, 5.0]
    policies["heuristic"] = PolicyInfo("heuristic", 1, "h", {"a": 7.0, "b": 3.0})   # a preset replaces it
    assert list(policy_row(policies, "heuristic(b=5)")[1][:2]) == [7.0, 5.0]
    assert len(policy_row(policies, "heuristic", width=12)[1]) == 12
