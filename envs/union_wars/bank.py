"""ESPLORAZIONE: the exploration winner's bank of bonus/malus points, spent by its owner.

Seed (IN BATTAGLIA, ESPLORAZIONE): "I punti in eccesso rispetto al tiro avversario, possono
essere usati come bonus o malus per un qualunque tiro (anche avversario), durante la partita."

With option exploration_bank="ask" spending is the owner's decision, taken after a roll against
a target (every test, to-hit, shield and armour die) whose outcome the bank can change
(``bank_roll``): its owner's failed test (spend the shortfall
as a bonus: it passes) or the opponent's passed test (spend the excess + 1 as a malus: it
fails).  The tests are rolled deep inside compiled resolutions, so the decision is taken by
**snapshot and replay** (RULES.md "Esplorazione"): every die comes from the game's own stream,
so a step's resolution is a function of the state at its start and of the bank decisions taken
in it.  The step keeps a copy of the state (``take_snapshot``), counts the bank-eligible rolls
as events, and at the first event with no recorded answer marks it pending; the step's rules
then go on (the pending roll kept as rolled) and ``rules.play`` puts the copy back and asks the
owner (stage ST_BANK).  The answer is recorded and the step's action replayed from the copy
with the same dice, the answered events applied as recorded.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.kernel import kernel
from .layout import (BK_AMOUNT0, BK_RESEED_AT, BK_RESEED_HI, BK_RESEED_LO, MAX_BANK_AMOUNT, BANK_ASK, BANK_OFF, BANK_OWN_TESTS, BK_ACTION, BK_ANSWERS, BK_EVENT, BK_KIND, BK_MARGIN, BK_NDEC, BK_NEED,
                     BK_OWNER, BK_PENDING, BK_RECORDING, BK_ROLLER, BK_SLOT, G_BANK0, G_BANK1, G_DECISIONS, GEO_SHOT,
                     K_BANK, MAX_BANK_ASKS, TK_HIT, BK_SPENT0, BK_WOUNDS, G_EXPLORE_WINNER, MD_WOUNDS,
                     ROLLER_NONE)


@kernel(cache=True)
def bank_roll(s, cfg, b, side, i, kind, passed, margin):
    """The outcome of a roll of model (side, i) against a target after the ESPLORAZIONE bank:
    ``passed`` and ``margin`` (roll total - target, >= 0 when passed) as rolled.  Natural results
    that always pass or fail (TEST) never get here."""
    return bank_event(s, cfg, b, side, side, i, kind, passed, margin)


@kernel(cache=True)
def bank_event(s, cfg, b, side, roller, i, kind, passed, margin):
    """bank_roll for any roll that passes or fails: ``passed`` is ``side``'s success, the roll is
    ``roller``'s (``ROLLER_NONE`` for a roll-off or the game's own roll) and model ``i``'s (-1: none)."""
    mode = cfg.k[K_BANK]
    if mode == BANK_OFF:
        return passed
    if mode == BANK_OWN_TESTS:
        # reading "own_tests": the shortfall of one's own failed discipline test is spent at once
        # (never on to-hit, shield or armour dice: the behaviour the shipped agents learnt)
        if not passed and kind < TK_HIT and s.g[b, G_BANK0 + side] >= -margin:
            s.g[b, G_BANK0 + side] += margin
            return True
        return passed
    owner = 1 - side if passed else side          # a malus on the opponent's pass, a bonus on one's own failure
    need = margin + 1 if passed else -margin
    if s.g[b, G_BANK0 + owner] < need or s.bk[b, BK_RECORDING] == 0:
        return passed                             # the bank cannot change it (or no step is being recorded)
    k = s.bk[b, BK_EVENT]
    s.bk[b, BK_EVENT] = k + 1
    if k < s.bk[b, BK_NDEC]:
        reseed_after(s, b, k)
        if (s.bk[b, BK_ANSWERS] >> k) & 1:
            s.g[b, G_BANK0 + owner] -= need
            if s.bk[b, BK_PENDING] == 0:
                s.bk[b, BK_SPENT0 + owner] += need
            return not passed
        return passed
    mark_pending(s, b, k, owner, roller, i, kind, need, margin)
    return passed


@kernel(cache=True)
def reseed_after(s, b, k):
    """A search's sample (``information.determinise``): once the roll of event ``k``, the question its
    player was asked, has been replayed as rolled, the dice drawn after it (which that player has not
    seen) come from the sample's own stream, at every replay of the step alike.  Never set in play."""
    if s.bk[b, BK_RESEED_AT] == k + 1:
        s.rng[b] = np.uint64(np.uint32(s.bk[b, BK_RESEED_LO])) | (np.uint64(np.uint32(s.bk[b, BK_RESEED_HI])) << np.uint64(32))


@kernel(cache=True)
def mark_pending(s, b, k, owner, roller, i, kind, need, margin):
    """Event ``k`` has no answer: the first such of this run becomes the question (stage ST_BANK)."""
    if k >= MAX_BANK_ASKS or s.bk[b, BK_PENDING] != 0:
        return
    s.bk[b, BK_PENDING] = 1
    s.bk[b, BK_OWNER] = owner
    s.bk[b, BK_ROLLER] = roller
    s.bk[b, BK_SLOT] = i
    s.bk[b, BK_KIND] = kind
    s.bk[b, BK_NEED] = need
    s.bk[b, BK_MARGIN] = margin
    # the model's wounds now: what the owner sees is the step's start (the bot's armour answer)
    s.bk[b, BK_WOUNDS] = s.md[b, roller, i, MD_WOUNDS] if i >= 0 and roller != ROLLER_NONE else 0


@kernel(cache=True)
def bank_reach(s, cfg, b, side, i, kind, total, target):
    """A distance roll (a charge's M+2D6, a throw's COSx10+2D6, night spotting's 2D6+SNx10) that
    must reach ``target`` cm: it passes or fails, so the bank may turn it (RULES.md)."""
    margin = int(math.floor(total - target))      # total + (-margin) >= target; total - (margin + 1) < target
    return bank_event(s, cfg, b, side, side, i, kind, total >= target, margin)


@kernel(cache=True)
def bank_game_roll(s, cfg, b, kind, passed, margin):
    """The game's own roll (no player's: the smoke's and extra time's 4+): the bank's holder may
    turn it either way (RULES.md "Esplorazione")."""
    holder = s.g[b, G_EXPLORE_WINNER]
    if s.g[b, G_BANK0 + 1 - holder] > s.g[b, G_BANK0 + holder]:
        holder = 1 - holder                       # a scenario's bank may be the loser's
    side = holder if not passed else 1 - holder   # bank_event: a bonus on ``side``'s failure, a malus on its pass
    return bank_event(s, cfg, b, side, ROLLER_NONE, -1, kind, passed, margin)


@kernel(cache=True, inline="always")
def bank_may_ask(s, cfg, b):
    """Only then is a step's start kept: with "ask" and points in a bank."""
    return cfg.k[K_BANK] == BANK_ASK and (s.g[b, G_BANK0] > 0 or s.g[b, G_BANK1] > 0)


@kernel(cache=True)
def take_snapshot(s, b):
    """The state at the start of a step's resolution (the terrain's shapes do not change in
    battle; the sight cache checks its own key, so neither is kept)."""
    s.snap_rng[b] = s.rng[b]
    s.snap_dice[b, :] = s.dice[b, :]
    s.snap_g[b, :] = s.g[b, :]
    s.snap_pos[b, :, :, :] = s.pos[b, :, :, :]
    s.snap_md[b, :, :, :] = s.md[b, :, :, :]
    s.snap_tinfo[b, :, :] = s.tinfo[b, :, :]
    s.snap_objs[b, :, :] = s.objs[b, :, :]
    s.snap_smoke[b, :, :] = s.smoke[b, :, :]
    s.snap_rq[b, :, :] = s.rq[b, :, :]
    for q in range(5):
        s.snap_shot[b, q] = s.geo[b, GEO_SHOT + q]


@kernel(cache=True)
def restore_snapshot(s, b):
    """Back to the step's start: the dice stream too, so the replay reads the same dice.  The
    decision counter is the env's, not the rules': it keeps counting."""
    decisions = s.g[b, G_DECISIONS]
    s.rng[b] = s.snap_rng[b]
    s.dice[b, :] = s.snap_dice[b, :]
    s.g[b, :] = s.snap_g[b, :]
    s.pos[b, :, :, :] = s.snap_pos[b, :, :, :]
    s.md[b, :, :, :] = s.snap_md[b, :, :, :]
    s.tinfo[b, :, :] = s.snap_tinfo[b, :, :]
    s.objs[b, :, :] = s.snap_objs[b, :, :]
    s.smoke[b, :, :] = s.snap_smoke[b, :, :]
    s.rq[b, :, :] = s.snap_rq[b, :, :]
    for q in range(5):
        s.geo[b, GEO_SHOT + q] = s.snap_shot[b, q]
    s.g[b, G_DECISIONS] = decisions


@kernel(cache=True)
def start_recording(s, b, a):
    """A new step: no bank decision taken yet; ``a`` is replayed after each answer."""
    s.bk[b, :] = 0
    s.bk[b, BK_ACTION] = a


@kernel(cache=True)
def record_answer(s, b, spend):
    """The answer to the pending question: ``spend`` points (0 keeps them)."""
    k = s.bk[b, BK_NDEC]
    if spend:
        s.bk[b, BK_ANSWERS] |= 1 << k
    s.bk[b, BK_AMOUNT0 + k] = spend
    s.bk[b, BK_NDEC] = k + 1


@kernel(cache=True)
def bank_amount(s, cfg, b, side, i, kind, value, up_helps, floor):
    """An amount roll of (side, i) with no target to pass (a count, a distance): its owner's bank
    may move the result in the roller's favour (``up_helps``: a higher result is the roller's),
    then the opponent's against it, by as many points as each chooses (1 ..
    MAX_BANK_AMOUNT, never below ``floor``).  Returns the result."""
    if cfg.k[K_BANK] != BANK_ASK or s.bk[b, BK_RECORDING] == 0:
        return value
    for q in range(2):
        owner = side if q == 0 else 1 - side
        up = up_helps if q == 0 else not up_helps
        cap = min(s.g[b, G_BANK0 + owner], MAX_BANK_AMOUNT)
        if not up:
            cap = min(cap, value - floor)
        if cap <= 0:
            continue
        spent = _amount_event(s, b, owner, side, i, kind, cap, value)
        if spent > 0:
            s.g[b, G_BANK0 + owner] -= spent
            if s.bk[b, BK_PENDING] == 0:
                s.bk[b, BK_SPENT0 + owner] += spent
            value += spent if up else -spent
    return value


@kernel(cache=True)
def _amount_event(s, b, owner, roller, i, kind, cap, value):
    """The recorded answer to this amount roll, or (the first unanswered one) mark it pending."""
    k = s.bk[b, BK_EVENT]
    s.bk[b, BK_EVENT] = k + 1
    if k < s.bk[b, BK_NDEC]:
        reseed_after(s, b, k)
        return s.bk[b, BK_AMOUNT0 + k]
    mark_pending(s, b, k, owner, roller, i, kind, cap, value)
    return 0
