"""Rating pools: which games are rated together, and under which parameters.

Bots rank differently at two seats and at four, and under other house rules,
so one rating over every game would mix unlike things. A rated game counts in
two pools: its tournament's own (`tournament:NAME`), and the pool of its rule
set and table size (`rules:DIGEST:N`), which gathers every tournament and
match played that way. Every leaderboard names the pool it shows.

Within a pool a bot's skill is taken to be fixed (a bot version does not
improve between games as a person does), so pools rate with τ = 0: every game
adds information and σ keeps shrinking, so that close bots can be told apart
once enough games are played. β and the draw probability are UNO's, fitted by
maximum likelihood (`arena.rating.fit`, measured by `python -m
arena.rating.demo`): one hand of UNO is luckier than TrueSkill's default
β = 25/6 assumes, more so at four seats than at two, and places almost never
tie. `arena rankings --fit` fits them again to a pool's own games.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from arena.engine.rules import RuleSet
from arena.rating import RatingParameters
from arena.rating.fit import POOL_TAU

HEADS_UP_BETA = 9.5
"""β fitted to heads-up single hands (2,000 games: 9.53)."""
TABLE_BETA = 14.5
"""β fitted to single hands at four seats (600 games: 14.4; partners, 2,000 games: 15.1)."""
DRAW_PROBABILITY = 0.005
"""UNO's places tie rarely (fitted: 0.001 to 0.005)."""


def pool_parameters(seats: int) -> RatingParameters:
    """What a new pool of tables of `seats` rates its games under: TrueSkill's skill
    scale, no drift, and UNO's luck."""
    return RatingParameters(tau=POOL_TAU, beta=HEADS_UP_BETA if seats == 2 else TABLE_BETA,
                            draw_probability=DRAW_PROBABILITY)

TOURNAMENT_PREFIX = "tournament:"
RULES_PREFIX = "rules:"


def tournament_pool(name: str) -> str:
    """The key of a tournament's own pool."""
    return f"{TOURNAMENT_PREFIX}{name}"


def rules_pool(rules: Mapping[str, Any], seats: int) -> str:
    """The key of the pool of every game played under `rules` (a rule set as stored)
    at tables of `seats`: a digest of the rule set, so equal rule sets share it."""
    canonical = json.dumps(RuleSet.from_dict(dict(rules)).to_dict(), sort_keys=True,
                           separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:10]
    return f"{RULES_PREFIX}{digest}:{seats}"


def describe_rules_pool(rules: Mapping[str, Any], seats: int) -> str:
    """A rules pool in words: "official rules, 4 seats", or the options that differ."""
    official = RuleSet().to_dict()
    given = RuleSet.from_dict(dict(rules)).to_dict()
    changed = [f"{name}={_value_text(value)}" for name, value in sorted(given.items())
               if official.get(name) != value]
    if not changed:
        text = "official rules"
    elif len(changed) <= 3:
        text = "official rules with " + ", ".join(changed)
    else:
        text = (f"official rules with {', '.join(changed[:3])} "
                f"and {len(changed) - 3} more changes")
    return f"{text}, {seats} seats"


def describe_tournament_pool(name: str, kind: str = "tournament") -> str:
    """A tournament pool in words ("ladder NAME" for a ladder's, `kind` "ladder")."""
    return f"{kind} {name}"


def _value_text(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
