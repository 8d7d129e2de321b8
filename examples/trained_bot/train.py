"""Train the linear bot: REINFORCE on arena's Gymnasium environment against the random sample bot.

numpy only, one core, a few minutes. The learner takes a seat drawn at random
each episode of `arena.env.single.SingleSeatEnv` (two seats, single hands under
the official rules) against ``sample_bots/python/random_bot.py``'s ``decide``;
it samples its actions from the softmax of `policy.LinearPolicy` over the legal
ones, and after each episode moves every decision's scores along the gradient
of its log-probability, times the episode's reward (+1 won, -1 lost) less a
running baseline. It writes ``policy.npz`` next to this file, then plays 200
evaluation games with the greedy (highest-score) policy, as the bot plays.

Run: ``python examples/trained_bot/train.py [--minutes 3] [--seed 1]``
(needs the env extra: ``pip install 'arena[env]'``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent)]  # policy.py; sample_bots

from policy import LinearPolicy  # noqa: E402

from arena.env.single import SingleSeatEnv  # noqa: E402
from sample_bots.python.random_bot import decide as random_decide  # noqa: E402

RULES = {"target_score": None}


def episode(env: SingleSeatEnv, policy: LinearPolicy, rng: np.random.Generator, seed: int,
            greedy: bool = False) -> tuple[float, list[tuple[np.ndarray, list[int], int]]]:
    """Play one game; its reward and, per decision, (encoding, legal indices, choice)."""
    observation, _ = env.reset(seed=seed)
    steps: list[tuple[np.ndarray, list[int], int]] = []
    while True:
        x = observation["observation"]
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if greedy:
            choice = policy.best(x, legal)
        else:
            choice = int(rng.choice(len(legal), p=policy.probabilities(x, legal)))
            steps.append((x, legal, choice))
        observation, reward, done, _, _ = env.step(legal[choice])
        if done:
            return reward, steps


def reinforce(policy: LinearPolicy, steps: list[tuple[np.ndarray, list[int], int]],
              advantage: float, rate: float) -> None:
    """One policy-gradient step: each decision's log-probability gradient, times `advantage`."""
    for x, legal, choice in steps:
        gradient = -policy.probabilities(x, legal)
        gradient[choice] += 1.0
        step = (rate * advantage) * gradient
        policy.weights[legal] += np.outer(step, x)
        policy.bias[legal] += step


def evaluate(policy: LinearPolicy, games: int, seed: int) -> float:
    """The greedy policy's share of wins against the random bot."""
    env = SingleSeatEnv([random_decide], rules=RULES)
    rng = np.random.default_rng(seed)
    wins = sum(episode(env, policy, rng, seed + g, greedy=True)[0] > 0 for g in range(games))
    return wins / games


def main() -> int:
    """Train for the time given, save the policy, and report its win rate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0.01)
    parser.add_argument("--out", type=Path, default=HERE / "policy.npz")
    options = parser.parse_args()
    env = SingleSeatEnv([random_decide], rules=RULES)
    policy = LinearPolicy()
    rng = np.random.default_rng(options.seed)
    baseline, episodes, started = 0.0, 0, time.monotonic()
    recent: list[float] = []
    while time.monotonic() - started < options.minutes * 60:
        reward, steps = episode(env, policy, rng, options.seed * 1_000_003 + episodes)
        reinforce(policy, steps, reward - baseline, options.rate / max(1, len(steps)) ** 0.5)
        baseline += 0.01 * (reward - baseline)
        recent.append(reward)
        episodes += 1
        if episodes % 200 == 0:
            wins = sum(r > 0 for r in recent[-200:]) / 200
            print(f"{episodes:6d} episodes, {time.monotonic() - started:5.0f} s: "
                  f"won {wins:.0%} of the last 200 (sampling)", flush=True)
    policy.save(options.out)
    print(f"saved {options.out} after {episodes} episodes")
    print(f"greedy policy against random: won {evaluate(policy, 200, 10**9):.0%} of 200 games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
