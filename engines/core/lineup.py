"""Seat line-ups: which policy, with which weights, sits in each seat.

A policy is written `name` or `name(weight=value, ...)`, e.g.
`heuristic(value_megamall=6, bid_fraction=0.4)`; unnamed weights keep their
defaults. One policy for every seat may be given once.

A weight must be a finite number no larger than WEIGHT_LIMIT in size (nan
compares False with everything, so a policy would silently never prefer
anything). A policy that declares `weight_ranges = {name: (lo, hi)}` on its
PolicyInfo gets those bounds checked too.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from engines.core.spec import GameSpec, PolicyInfo

_POLICY_RE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$")


class LineupError(ValueError):
    pass


# Generic sanity bound on any policy weight: every shipped default lies within
# [0, 16]; a weight a million times larger is a typo, not an experiment.
WEIGHT_LIMIT = 1e6


def check_weight(policy: PolicyInfo, key: str, value: float) -> str | None:
    """Why `value` cannot be policy weight `key`, or None."""
    if not math.isfinite(value):
        return f"must be a finite number, not {value!r}"
    if abs(value) > WEIGHT_LIMIT:
        return f"must lie between {-WEIGHT_LIMIT:g} and {WEIGHT_LIMIT:g}, not {value:g}"
    lo, hi = (getattr(policy, "weight_ranges", None) or {}).get(key, (None, None))
    if lo is not None and value < lo:
        return f"must be at least {lo:g}, not {value:g}"
    if hi is not None and value > hi:
        return f"must be at most {hi:g}, not {value:g}"
    return None


@dataclass(frozen=True)
class SeatPolicy:
    info: PolicyInfo
    weights: dict[str, float]
    # the weights appended after the policy's own (PolicyInfo.follow): the chosen rollout
    # policy's defaults for a search player
    tail: tuple[float, ...] = ()
    # the followed policy by name, when the line-up named one: a preset shares its base's id, so
    # the id alone cannot tell search(rollout=heuristic_tuned) from search(rollout=heuristic)
    followed: str = ""

    def shown(self, key: str, value: float) -> str:
        if key == self.info.follow and self.followed:
            return self.followed
        for name, v in self.info.choices.get(key, {}).items():
            if v == value:
                return name
        return f"{value:g}"

    @property
    def label(self) -> str:
        follow = self.info.follow
        default_followed = _choice_name(self.info, follow, self.info.weights.get(follow)) if follow else ""
        changed = {k: v for k, v in self.weights.items()
                   if v != self.info.weights.get(k) or (k == follow and self.followed not in ("", default_followed))}
        if not changed:
            return self.info.name
        inner = ", ".join(f"{k}={self.shown(k, v)}" for k, v in changed.items())
        return f"{self.info.name}({inner})"

    @property
    def row(self) -> list[float]:
        """The kernel's weight row: the policy's weights in order, then the tail."""
        return list(self.weights.values()) + list(self.tail)


def parse_policy(spec: GameSpec, text: str) -> SeatPolicy:
    """`name` or `name(weight=value, ...)` -> the seat's policy and weights (LineupError says why not)."""
    return parse_policy_text(spec.policies, text, spec.game_id)


def parse_policy_text(policies: dict[str, PolicyInfo], text: str, game_id: str = "this game") -> SeatPolicy:
    """parse_policy over a game's policies table (what a game's step API uses: it has no spec yet)."""
    match = _POLICY_RE.match(text)
    if not match:
        raise LineupError(f"policy '{text}' is not of the form name or name(weight=value, ...)")
    name, args = match.group(1), match.group(2)
    if name not in policies:
        raise LineupError(f"unknown policy '{name}' for {game_id} (known: {', '.join(policies)})")
    info = policies[name]
    weights = dict(info.weights)
    followed = ""
    for part in filter(None, (a.strip() for a in (args or "").split(","))):
        if "=" not in part:
            raise LineupError(f"policy '{text}': '{part}' must be weight=value")
        key, raw = (s.strip() for s in part.split("=", 1))
        if key not in weights:
            known = ", ".join(weights) or "none"
            raise LineupError(f"policy '{name}' has no weight '{key}' (its weights: {known})")
        if key in info.choices:
            if raw not in info.choices[key]:
                raise LineupError(f"policy '{text}': {key} must be one of {', '.join(info.choices[key])}, "
                                  f"not '{raw}'")
            weights[key] = float(info.choices[key][raw])
            if key == info.follow:
                followed = raw
            continue
        try:
            weights[key] = float(raw)
        except ValueError:
            raise LineupError(f"policy '{text}': weight {key} must be a number, not '{raw}'") from None
        why = check_weight(info, key, weights[key])
        if why:
            raise LineupError(f"policy '{text}': weight {key} {why}")
    tail: tuple[float, ...] = ()
    if info.follow:
        name_of = followed or _choice_name(info, info.follow, weights[info.follow])
        tail = tuple(policies[name_of].weights.values())
    return SeatPolicy(info, weights, tail, followed)


def _choice_name(info: PolicyInfo, key: str, value: float | None) -> str:
    """The first name of choice `value` (a base policy comes before its presets)."""
    return next((n for n, v in info.choices.get(key, {}).items() if v == value), "")


# policy_row's parses: (id of the policies table, text, width) -> (the table's policies when parsed, info, row)
_ROWS: dict[tuple[int, str, int], tuple[tuple[PolicyInfo, ...], PolicyInfo, np.ndarray]] = {}
_ROWS_KEPT = 1024


def policy_row(policies: dict[str, PolicyInfo], text: str, width: int = 8) -> tuple[PolicyInfo, np.ndarray]:
    """A step API's `policy_action(text)`: the policy and its kernel weight row (>= width wide), a
    fresh array the caller may change.

    Parsed once per text: a step API asks at every decision, and a report's kingmaking play-outs
    make tens of thousands of them (the parse was a quarter of their time). A parse is reused only
    while the table holds the very same policies (a preset added or replaced parses again)."""
    key = (id(policies), text, width)
    table = tuple(policies.values())
    kept = _ROWS.get(key)
    if kept is not None and len(kept[0]) == len(table) and all(a is b for a, b in zip(kept[0], table)):
        return kept[1], kept[2].copy()
    seat = parse_policy_text(policies, text)
    row = np.zeros(max(width, len(seat.row)))
    row[:len(seat.row)] = seat.row
    if len(_ROWS) >= _ROWS_KEPT:   # a tuning session parses a new text per trial: keep the memo small
        _ROWS.clear()
    _ROWS[key] = (table, seat.info, row.copy())
    return seat.info, row


@dataclass(frozen=True)
class Lineup:
    seats: tuple[SeatPolicy, ...]
    rotate: bool

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.seats]

    def policy_ids(self) -> np.ndarray:
        return np.array([s.info.policy_id for s in self.seats], dtype=np.int64)

    def weight_rows(self, width: int) -> np.ndarray:
        """One weight row per seat, at least `width` wide (wider when a seat's row needs it:
        a search player's row carries its rollout policy's weights after its own)."""
        width = max([width] + [len(seat.row) for seat in self.seats])
        rows = np.zeros((len(self.seats), width), dtype=np.float64)
        for i, seat in enumerate(self.seats):
            values = seat.row
            rows[i, : len(values)] = values
        return rows


def make_lineup(spec: GameSpec, policies: list[str] | None, players: int, rotate: bool) -> Lineup:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players < 1:
        raise LineupError(f"the number of players must be a positive whole number, not {players!r}")
    # None: the line-up the game declares (GameSpec.default_lineup), the one every entry point plays
    # (it was random in every seat here); an empty list is a mistake, not a request for the default
    policies = spec.default_policies(players) if policies is None else list(policies)
    if not policies:
        raise LineupError("no policy given: give one, or one per seat (or none at all for the game's line-up)")
    if len(policies) == 1:
        policies = policies * players
    if len(policies) != players:
        raise LineupError(f"{len(policies)} policies given for {players} players: give one, or one per seat")
    return Lineup(tuple(parse_policy(spec, p) for p in policies), rotate)


def seat_arrays(seat_policy_ids, seat_weights, n_players: int, min_width: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The line-up as a game's `simulate` hands it to its kernels: policy ids int64[P] and a
    C-contiguous weight matrix float64[P, >= min_width] (a flat row is one seat's; missing
    columns are zeros, which no policy reads). Refuses a line-up of the wrong size."""
    ids = np.ascontiguousarray(seat_policy_ids, dtype=np.int64)
    w = np.ascontiguousarray(seat_weights, dtype=np.float64)
    if w.ndim == 1:
        w = w.reshape(len(ids), -1)
    if len(ids) != n_players or w.shape[0] != n_players:
        raise ValueError(f"line-up has {len(ids)} policies and {w.shape[0]} weight rows for {n_players} players")
    if w.shape[1] < min_width:
        w = np.hstack([w, np.zeros((w.shape[0], min_width - w.shape[1]))])
    return ids, w
