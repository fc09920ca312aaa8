"""Star Fleet Battle Force: race balance measured by play (issue 14 item 7).

``balance.py`` checks the reconstructed numbers against the formula they were tuned with; this
plays whole games with the built-in heuristic bot (``bot.HEURISTIC``, policy "scripted") in
every seat and counts who wins, so cloak and web, defence and combat cards, fighters and the
formation rules all count.

Run::

    python -m wargym.envs.battle_force.data.playtest              # the table in DATA.md
    python -m wargym.envs.battle_force.data.playtest --games 20   # quicker, per pairing

Every game ends at the latest after the third reshuffle of the action deck (SFBF Regole
Opzionali, Condizioni di fine gioco 2: "tre o quattro volte"), so that two bots that cannot
hurt each other do not play for ever; a game still running after 30,000 decisions is left out
and counted.  Set-ups (advanced game, default options otherwise):
- **2 players, single race** (option ``single_race``): every ordered pair of different races,
  so each race plays each other race from both seats; ``--games`` games per ordered pair.
- **4 players, single race**: four different races per game, drawn at random, seats shuffled;
  ``--games`` x 21 games.
- **2 players, normal deal** (``ship_selection="deal"``, 15 random ships each): the seat
  balance, and each race's result weighted by its share of the player's starting VP.

A win counts 1, a shared win 1/n; the rate's 95 % interval is Wilson's.  The expected rate of
a balanced race is 1/2 with two players and 1/4 with four.
"""
from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from wargym.arena.stats import wilson_interval as wilson

RACE_NAMES = ("Federation", "Klingon", "Romulan", "Gorn", "Kzinti", "Orion", "Tholian")
END = {"end_shuffles": 3, "max_decisions": 30000}


def _play_single_race(races: np.ndarray, seed: int, options: dict):
    """Games with the given race per seat (``races[b, p]``), played to the end by the heuristic
    bot in every seat.  Returns the (B, P) win shares."""
    from wargym.envs.battle_force import bot
    from wargym.envs.battle_force import game as G
    from wargym.envs.battle_force import rules as R
    from wargym.envs.core.vec import VecGame
    B, P = races.shape
    core = VecGame(G, B, {"players": P, "single_race": True, **END, **options})
    core.reset(seed=seed)
    base = G.action_index(core.cfg, "RACE", 0)
    for _ in range(4 * P):                          # SFBF Giocare una gara singola: the race picks
        at = core.state.g[:, R.G_STAGE] == R.ST_RACE
        if not at.any():
            break
        dec = core.state.g[:, R.G_DECIDER].astype(np.int64)
        core.step(base + races[np.arange(B), dec], at)
    bot.play(core, "scripted")
    win = core.state.pl[:, :, R.PL_WIN].astype(float)
    n = np.maximum(win.sum(1, keepdims=True), 1)
    share = win / n
    share[(core.state.g[:, R.G_DONE] == 0) | (core.state.g[:, R.G_TRUNC] != 0)] = np.nan   # cut off: left out
    return share, core


def two_player_single_race(games: int, seed: int):
    pairs = [(a, b) for a in range(7) for b in range(7) if a != b]
    races = np.array([p for p in pairs for _ in range(games)], dtype=np.int64)
    share, _ = _play_single_race(races, seed, {})
    return races, share


def four_player_single_race(games: int, seed: int):
    rng = np.random.default_rng(seed)
    races = np.array([rng.permutation(7)[:4] for _ in range(21 * games)], dtype=np.int64)
    share, _ = _play_single_race(races, seed + 1, {})
    return races, share


def normal_deal(games: int, seed: int):
    from wargym.envs.battle_force import bot
    from wargym.envs.battle_force import game as G
    from wargym.envs.battle_force import rules as R
    from wargym.envs.core.vec import VecGame
    B = 42 * games
    core = VecGame(G, B, {"ship_selection": "deal", **END})
    core.reset(seed=seed)
    # each player's starting VP by race (the ships dealt, before any is lost)
    owner = core.state.sh[:, :, R.SH_OWNER]
    in_fleet = core.state.sh[:, :, R.SH_LOC] == R.SL_FLEET
    vp = core.cfg.ship[:, R.SC_VP][None, :]
    race = core.cfg.ship[:, R.SC_RACE]
    weight = np.zeros((B, 2, 7))
    for p in range(2):
        for r in range(7):
            weight[:, p, r] = ((in_fleet & (owner == p) & (race[None, :] == r)) * vp).sum(1)
    weight /= np.maximum(weight.sum(2, keepdims=True), 1)
    bot.play(core, "scripted")
    win = core.state.pl[:, :, R.PL_WIN].astype(float)
    share = win / np.maximum(win.sum(1, keepdims=True), 1)
    ok = (core.state.g[:, R.G_DONE] != 0) & (core.state.g[:, R.G_TRUNC] == 0)
    return weight[ok], share[ok]


def race_rows(races: np.ndarray, share: np.ndarray):
    rows = []
    for r in range(7):
        m = (races == r) & ~np.isnan(share)
        n = int(m.sum())
        w = float(share[m].sum())
        lo, hi = wilson(w, n)
        rows.append((RACE_NAMES[r], n, w / max(n, 1), lo, hi))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100, help="games per ordered race pair (2 players); "
                    "the 4-player and normal-deal runs play 21x and 42x this")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    t0 = time.time()
    races, share = two_player_single_race(args.games, args.seed)
    print(f"2 players, single race, heuristic bot in both seats, {len(races)} games "
          f"({args.games} per ordered pair of races), expected 0.50:")
    print("| Race | Games | Win rate | 95 % interval |\n|---|---:|---:|---|")
    for name, n, rate, lo, hi in race_rows(races, share):
        print(f"| {name} | {n} | {rate:.3f} | {lo:.3f}–{hi:.3f} |")
    seat0 = float(np.nanmean(share[:, 0]))
    print(f"\nseat 0 (first player) wins {seat0:.3f} of these games")
    races4, share4 = four_player_single_race(args.games, args.seed)
    print(f"\n4 players, single race, {len(races4)} games (four different races at random), expected 0.25:")
    print("| Race | Games | Win rate | 95 % interval |\n|---|---:|---:|---|")
    for name, n, rate, lo, hi in race_rows(races4, share4):
        print(f"| {name} | {n} | {rate:.3f} | {lo:.3f}–{hi:.3f} |")
    weight, share2 = normal_deal(args.games, args.seed)
    print(f"\n2 players, normal deal (15 random ships each), {len(share2)} games:")
    lo, hi = wilson(float(share2[:, 0].sum()), len(share2))
    print(f"seat 0 wins {share2[:, 0].mean():.3f} (95 % {lo:.3f}–{hi:.3f})")
    print("| Race | VP share of fleets | Result weighted by VP share |\n|---|---:|---:|")
    for r in range(7):
        w = weight[:, :, r]
        print(f"| {RACE_NAMES[r]} | {w.mean():.3f} | {(w * share2).sum() / max(w.sum(), 1e-9):.3f} |")
    cut = int(np.isnan(share[:, 0]).sum()), int(np.isnan(share4[:, 0]).sum()), 42 * args.games - len(share2)
    print(f"\ngames cut off at 30,000 decisions and left out: {cut[0]} (2 players), {cut[1]} (4 players), "
          f"{cut[2]} (normal deal); {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
