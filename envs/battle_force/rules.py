"""Star Fleet Battle Force (seed 001) as Numba kernels over batched state: the batched entry points
(same contract as every wargym game, see core/contract.py) and a new game (``reset_game``).

The rules are in the chapter modules, each named after the rulebook's headings it implements (RULES.md,
"Where the rules are"); this module re-exports every chapter's names, so that
``from wargym.envs.battle_force import rules as R`` reaches all of them (``game.kernels`` is this module).

The game advances decision by decision: ``apply_action`` performs the chosen action, then ``settle``
carries out everything that involves no choice (a step whose only legal action is forced is taken at
once) until a player has a real decision to make.
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.kernel import kernel
from ..core.ranges import specialise_ranges
from ..core.rng import draw_int, seed_stream
from ..core.structs import borrow
from .layout import (CC_IN, CD_LINK, CD_LOC, CD_SHIP, CD_WHO, CL_DECK, CL_OUT, G_ACTIVE, G_ATK_SHIP, G_CDC_NEXT,
                     G_DECIDER, G_DECISIONS, G_DECK_N, G_DEFENDER, G_DMG_SHIP, G_DONE, G_DRAWN, G_FIRST_ATTACKER,
                     G_HELPER, G_PENDING, G_REP_SHIP, G_ROUND, G_SEL, G_SETUP_P, G_TARGET, G_TRUNC, G_TURN, K_ADVANCED,
                     K_ALLIES, K_MAX_DECISIONS, K_NC, K_NS, K_N_ACTIONS, K_ORDER_CARDS, K_P, K_PER_PLAYER, K_REWARD,
                     K_SELECTION, K_SINGLE_RACE, K_SOLITAIRE, OK, PL_FINAL, PL_ORDER, PL_RACE, PL_SCORE, PL_TEAM,
                     PL_WIN, SEL_DEAL, SH_LOC, SH_OWNER, SL_POOL, config_view, outputs_view, state_view)
from .players import automaton, shuffle_order
from .cards import draw_to_hand, shuffle_stack
from .victory import side_score
from .sequence import continue_draw, enter_attack, enter_formation, enter_repair
from .setup import advance_pick, after_selection, begin_race_picks, deal_ships_from_deck, pool_to_deck
from .legality import action_reason, write_mask
from .actions import apply_action, settle
from .observation import write_obs

# every chapter's names, so that ``from wargym.envs.battle_force import rules as R`` reaches them all
from .layout import *  # noqa: F401,F403
from .players import *  # noqa: F401,F403
from .ships import *  # noqa: F401,F403
from .cards import *  # noqa: F401,F403
from .weapons import *  # noqa: F401,F403
from .attack_table import *  # noqa: F401,F403
from .formation import *  # noqa: F401,F403
from .attack import *  # noqa: F401,F403
from .victory import *  # noqa: F401,F403
from .solitaire import *  # noqa: F401,F403
from .sequence import *  # noqa: F401,F403
from .resolution import *  # noqa: F401,F403
from .defence import *  # noqa: F401,F403
from .fighters import *  # noqa: F401,F403
from .mutiny import *  # noqa: F401,F403
from .ceasefire import *  # noqa: F401,F403
from .duel import *  # noqa: F401,F403
from .setup import *  # noqa: F401,F403
from .legality import *  # noqa: F401,F403
from .actions import *  # noqa: F401,F403
from .observation import *  # noqa: F401,F403
from . import (actions, attack, attack_table, cards, defence, duel, fighters, formation, layout, legality, observation,
               players, resolution, sequence, setup, ships, solitaire, ceasefire, mutiny, victory, weapons)

# the chapter modules, each importing only those before it (RULES.md, "Where the rules are"; tests/test_layout.py)
CHAPTERS = (layout, players, ships, cards, weapons, attack_table, formation, mutiny, attack, victory, solitaire,
            sequence, resolution, defence, fighters, ceasefire, duel, setup, legality, actions, observation)


@kernel(cache=True)
def clear_game(s, cfg, b):
    s.g[b, :] = 0
    s.cd[b, :, :] = 0
    s.sh[b, :, :] = 0
    s.pos[b, :] = 0
    s.pl[b, :, :] = 0
    s.deck[b, :] = 0
    s.disc[b, :] = 0
    s.sdeck[b, :] = 0
    s.dice[b, 0] = 0
    s.dice[b, 1] = 0
    for c in range(cfg.k[K_NC]):
        s.cd[b, c, CD_LINK] = -1
        s.cd[b, c, CD_SHIP] = -1
        s.cd[b, c, CD_WHO] = -1
    for i in range(cfg.k[K_NS]):
        s.sh[b, i, SH_OWNER] = -1
    for col in (G_ATK_SHIP, G_TARGET, G_DEFENDER, G_PENDING, G_SEL, G_DRAWN, G_HELPER, G_FIRST_ATTACKER,
                G_SETUP_P, G_DMG_SHIP, G_REP_SHIP, G_CDC_NEXT):
        s.g[b, col] = -1
    P = cfg.k[K_P]
    for p in range(P):
        s.pl[b, p, PL_TEAM] = p % (P // 2) if cfg.k[K_ALLIES] else p
        s.pl[b, p, PL_ORDER] = p
        s.pl[b, p, PL_RACE] = -1


@kernel(cache=True)
def reset_game(s, cfg, b, seed, mask):
    """A new game from the options' set-up, settled; ``mask`` gets its first decision's legal actions."""
    clear_game(s, cfg, b)
    s.rng[b] = seed_stream(seed)
    s.policy_rng[b] = seed_stream(seed ^ np.uint64(0x5DEECE66D))
    NC = cfg.k[K_NC]
    NS = cfg.k[K_NS]
    P = cfg.k[K_P]
    if cfg.k[K_ORDER_CARDS]:
        shuffle_order(s, cfg, b)
    # action deck (SFBF Preparazione: the learning game and the no-fighters game remove cards)
    n = 0
    for c in range(NC):
        if cfg.card[c, CC_IN]:
            s.cd[b, c, CD_LOC] = CL_DECK
            s.deck[b, n] = c
            n += 1
        else:
            s.cd[b, c, CD_LOC] = CL_OUT
    s.g[b, G_DECK_N] = n
    shuffle_stack(s, b, s.deck, n)
    deal = 7 if cfg.k[K_ADVANCED] else 5
    for r in range(deal):
        for p in range(P):
            if not automaton(cfg, p):    # SFBF Gioco in solitario: "non dare carte azione all'avversario"
                draw_to_hand(s, cfg, b, p)
    for i in range(NS):
        s.sh[b, i, SH_LOC] = SL_POOL
    if cfg.k[K_SINGLE_RACE]:
        begin_race_picks(s, cfg, b)
    elif cfg.k[K_SELECTION] == SEL_DEAL:
        pool_to_deck(s, cfg, b)
        deal_ships_from_deck(s, cfg, b, cfg.k[K_PER_PLAYER])
        after_selection(s, cfg, b)
    else:
        s.g[b, G_SETUP_P] = P - 1
        advance_pick(s, cfg, b)
    settle(s, cfg, b, mask)


@kernel(inline="always")  # into reset_range (core/ranges.py), its one compiled entry point
def reset_one(s, cfg, b, seed, out):
    """A new game ``b`` from ``seed``: its observation, mask (written by settle) and player."""
    sv, cv, ov = state_view(s), config_view(cfg), outputs_view(out)
    reset_game(sv, cv, b, seed, ov.mask[b])
    write_obs(sv, cv, b, sv.g[b, G_DECIDER], ov.obs[b])
    ov.player[b] = sv.g[b, G_DECIDER]


@kernel(cache=True)
def final_reward(s, cfg, b, p):
    """Option reward='rank': +1 for first place down to -1 for last, linear in the rank; tied
    players share the average of their places (a two-player tie is 0)."""
    P = cfg.k[K_P]
    better = 0
    equal = 0
    me = s.pl[b, p, PL_WIN] * 100000 + side_score(s, cfg, b, p)
    for q in range(P):
        if q == p:
            continue
        other = s.pl[b, q, PL_WIN] * 100000 + side_score(s, cfg, b, q)
        if other > me:
            better += 1
        elif other == me:
            equal += 1
    avg = better + 0.5 * equal
    return 1.0 - 2.0 * avg / (P - 1)


# Inlined (Numba IR) into step_range (core/ranges.py), the step's one compiled entry point, and into the loops
# through step_game: each compiled entry point compiles the whole step once more.
@kernel(inline="always")
def play_step(s, cfg, b, a, out, auto_reset):
    """One decision of game b on views: the legality check, the action and everything it forces,
    rewards and flags, the observation, and the mask (written by settle)."""
    P = cfg.k[K_P] if not cfg.k[K_SOLITAIRE] else 1    # agents: the solitaire automaton is none
    for p in range(P):
        out.rewards[b, p] = 0
    out.term[b] = False
    out.trunc[b] = False
    # out.mask[b] holds the legal actions of this decision (every kernel that changes a game
    # rewrites it, and VecGame.refresh after writes from outside), so a legal action needs no
    # second look at the rules; an action the mask refuses gets its reason from them
    legal = a >= 0 and a < cfg.k[K_N_ACTIONS] and out.mask[b, a] != 0
    code = OK if legal else action_reason(s, cfg, b, a)
    out.illegal[b] = code
    if code != OK:
        return
    g = s.g
    # the scores before the action, kept in the reward buffer (exact: float32 holds every
    # score) rather than in an array allocated every step
    for p in range(P):
        out.rewards[b, p] = s.pl[b, p, PL_SCORE]
    apply_action(s, cfg, b, a, out.mask[b])
    g[b, G_DECISIONS] += 1
    for p in range(P):
        before = np.int32(out.rewards[b, p])
        out.rewards[b, p] = 0
        if cfg.k[K_REWARD] == 1:
            # reward='points': victory points scored this step, in tens; at the end the points of
            # the surviving ships too, so a player's return is its final score / 10
            out.rewards[b, p] = (s.pl[b, p, PL_SCORE] - before) / 10.0
    if g[b, G_DONE] and not g[b, G_TRUNC]:
        out.term[b] = True
        for p in range(P):
            if cfg.k[K_REWARD] == 0:
                out.rewards[b, p] = final_reward(s, cfg, b, p)
            else:
                out.rewards[b, p] += (s.pl[b, p, PL_FINAL] - s.pl[b, p, PL_SCORE]) / 10.0
    elif g[b, G_DONE] or (cfg.k[K_MAX_DECISIONS] > 0 and g[b, G_DECISIONS] >= cfg.k[K_MAX_DECISIONS]):
        out.trunc[b] = True
    if (out.term[b] or out.trunc[b]) and auto_reset:
        for p in range(P):
            write_obs(s, cfg, b, p, out.final_obs[b, p])
        reset_game(s, cfg, b, np.uint64(draw_int(s.rng, b, 2**62)), out.mask[b])
    write_obs(s, cfg, b, g[b, G_DECIDER], out.obs[b])
    out.player[b] = g[b, G_DECIDER]


@kernel(inline="always")
def step_game(s, cfg, b, a, out, auto_reset):
    """One decision of game b; takes structs (the bot's loops, core/loops.py, inline it) or views."""
    play_step(state_view(s), config_view(cfg), b, a, outputs_view(out), auto_reset)


# The batched entry points VecGame calls, written once for every game (core/ranges.py)
step_range, reset_range = specialise_ranges("battle_force", step_game, reset_one, sources=(sys.modules[__name__],))


@kernel(cache=True)
def observe_game(s, cfg, b, p, obs, mask):
    sv, cv = state_view(s), config_view(cfg)
    write_obs(sv, cv, b, p, borrow(obs))
    mask[:] = 0
    if p == sv.g[b, G_DECIDER] and not sv.g[b, G_DONE]:
        write_mask(sv, cv, b, borrow(mask))


@kernel(cache=True)
def start_scenario(s, cfg, b, active, phase, rnd):
    """Begin the turn of ``active`` at phase 1 (draw), 2 (repair), 3 (formation) or 4 (attack)
    for a game whose cards and ships a scenario has placed; then settle (the caller observes
    the game afterwards, so the mask settle writes is scratch)."""
    sv, cv = state_view(s), config_view(cfg)
    scenario_start(sv, cv, b, active, phase, rnd, np.zeros(cv.k[K_N_ACTIONS], dtype=np.int8))


@kernel(cache=True)
def scenario_start(s, cfg, b, active, phase, rnd, mask):
    s.g[b, G_ROUND] = rnd
    s.g[b, G_SETUP_P] = -1
    s.g[b, G_ACTIVE] = active
    s.g[b, G_TURN] += 1
    s.g[b, G_FIRST_ATTACKER] = -1
    s.g[b, G_ATK_SHIP] = -1
    s.g[b, G_TARGET] = -1
    if phase <= 1:
        continue_draw(s, cfg, b)
    elif phase == 2:
        enter_repair(s, cfg, b)
    elif phase == 3:
        enter_formation(s, cfg, b, 1)
    else:
        enter_attack(s, cfg, b)
    settle(s, cfg, b, mask)
