"""REGOLE GENERALI: dice, tests, roll-offs, rounding; model accessors used everywhere.

Seed headings: MISURAZIONI, DADI, TEST, SPAREGGI, INDECISIONI, ARROTONDAMENTI.
"""
from __future__ import annotations

import math

from ..core.kernel import kernel
from ..core.rng import roll_die
from .bank import bank_event, bank_game_roll, bank_roll
from .layout import (ROLLER_NONE, ACTIVE, F_ENGAGED, G_CMD0, G_TURN, MD_FLASH_UNTIL, K_MORALE_EACH, MD_CAR, MD_FLAGS, MD_MORALE,
                     MD_PROFILE, MD_STATUS, N_SLOTS, OOC, PF_CAR, PF_HEIGHT_MM, PF_PSI, PF_RADIUS_MM, PF_SN,
                     MD_FATIGUE, MD_WOUNDS, PF_COS, PF_FS)


@kernel(cache=True)
def d6(s, b):
    """DADI: one D6 (the next scripted die when a test scripts them)."""
    return roll_die(s.rng, s.dice_script, s.dice, b, 6)


@kernel(cache=True)
def d3(s, b):
    """DADI: "un D6 può essere usato per tirare un D3: 1-2=1; 3-4=2; 5-6=3"."""
    return (d6(s, b) + 1) // 2


@kernel(cache=True, inline="always")
def round_up(x):
    """ARROTONDAMENTI: "sempre per eccesso"."""
    return int(math.ceil(x - 1e-9))


@kernel(cache=True)
def test_d6(s, cfg, b, side, i, target, mod, kind):
    """TEST with 1D6 of model (side, i) (``i`` -1: the player's, as the reserves'): a natural 1
    always fails, a natural 6 always succeeds; else roll + mod >= target, which the ESPLORAZIONE
    bank may turn (``kind``: layout.TK_*)."""
    r = d6(s, b)
    if r == 1:
        return False
    if r == 6:
        return True
    margin = r + mod - target
    return bank_roll(s, cfg, b, side, i, kind, margin >= 0, margin)


@kernel(cache=True)
def game_test_d6(s, cfg, b, target, kind):
    """The game's own 1D6 test (the smoke's and extra time's 4+, no player's roll): a natural 1
    fails, a 6 succeeds (TEST); the bank's holder may turn the rest either way."""
    r = d6(s, b)
    if r == 1 or r == 6:
        return r == 6
    return bank_game_roll(s, cfg, b, kind, r >= target, r - target)


@kernel(cache=True)
def roll_off(s, b, bonus0, bonus1):
    """SPAREGGI: both roll 1D6 + bonus, the higher wins; a tie is rolled again (ties are not the
    one allowed repeat).  Returns the winner and the margin."""
    for _ in range(100):
        a = d6(s, b) + bonus0
        c = d6(s, b) + bonus1
        if a > c:
            return 0, a - c
        if c > a:
            return 1, c - a
    return 0, 0


@kernel(cache=True)
def banked_roll_off(s, cfg, b, kind):
    """SPAREGGI after ESPLORAZIONE (deployment, initiative): the loser's bonus or the winner's
    malus of margin + 1 turns it (a tie would only be rolled again).  Returns the winner."""
    w, margin = roll_off(s, b, 0, 0)
    zero_wins = bank_event(s, cfg, b, 0, ROLLER_NONE, -1, kind, w == 0, margin if w == 0 else -(margin + 1))
    return 0 if zero_wins else 1


# -- model accessors ------------------------------------------------------------------
@kernel(cache=True, inline="always")
def prof(s, b, side, i):
    return s.md[b, side, i, MD_PROFILE]


@kernel(cache=True, inline="always")
def stat(s, cfg, b, side, i, col):
    return cfg.pf[s.md[b, side, i, MD_PROFILE], col]


@kernel(cache=True, inline="always")
def radius(s, cfg, b, side, i):
    """Base radius in cm (profiles give the base diameter in mm)."""
    return cfg.pf[s.md[b, side, i, MD_PROFILE], PF_RADIUS_MM] / 20.0


@kernel(cache=True, inline="always")
def height(s, cfg, b, side, i):
    return cfg.pf[s.md[b, side, i, MD_PROFILE], PF_HEIGHT_MM] / 10.0


@kernel(cache=True, inline="always")
def on_table(s, b, side, i):
    st = s.md[b, side, i, MD_STATUS]
    return st == ACTIVE or st == OOC


@kernel(cache=True, inline="always")
def is_active(s, b, side, i):
    return s.md[b, side, i, MD_STATUS] == ACTIVE


@kernel(cache=True, inline="always")
def has_flag(s, b, side, i, f):
    return (s.md[b, side, i, MD_FLAGS] & f) != 0


@kernel(cache=True, inline="always")
def exhausted(s, cfg, b, side, i):
    """LA FATICA: as many fatigue markers as COS: the model may only recover, never react."""
    return s.md[b, side, i, MD_FATIGUE] >= stat(s, cfg, b, side, i, PF_COS)


@kernel(cache=True, inline="always")
def wounds_left(s, cfg, b, side, i):
    """LE FERITE: the wounds the model can still take (FS - wounds)."""
    return stat(s, cfg, b, side, i, PF_FS) - s.md[b, side, i, MD_WOUNDS]


@kernel(cache=True, inline="always")
def set_flag(s, b, side, i, f):
    s.md[b, side, i, MD_FLAGS] |= f


@kernel(cache=True, inline="always")
def clear_flag(s, b, side, i, f):
    s.md[b, side, i, MD_FLAGS] &= ~f


@kernel(cache=True, inline="always")
def model_distance(s, cfg, b, sa, ia, sb, ib):
    """MISURAZIONI: base edge to base edge, in cm."""
    return (math.hypot(s.pos[b, sa, ia, 0] - s.pos[b, sb, ib, 0], s.pos[b, sa, ia, 1] - s.pos[b, sb, ib, 1])
            - radius(s, cfg, b, sa, ia) - radius(s, cfg, b, sb, ib))


@kernel(cache=True, inline="always")
def control_range(s, cfg, b, side, i):
    """AREA DI CONTROLLO: SN x 2 from the base edge; off while engaged in melee."""
    if has_flag(s, b, side, i, F_ENGAGED) or not is_active(s, b, side, i):
        return -1.0
    if s.md[b, side, i, MD_FLASH_UNTIL] >= s.g[b, G_TURN]:
        return -1.0   # FLASHBANG: "l'area di controllo non ha efficacia"
    return 2.0 * stat(s, cfg, b, side, i, PF_SN)


@kernel(cache=True, inline="always")
def in_control_area(s, cfg, b, side, i, other_side, j):
    """Is model (other_side, j) inside model (side, i)'s control area."""
    cr = control_range(s, cfg, b, side, i)
    return cr >= 0 and model_distance(s, cfg, b, side, i, other_side, j) <= cr


# -- LO STATO PSICOLOGICO: the discipline test ----------------------------------------------
@kernel(cache=True)
def effective_psi(s, cfg, b, side, i):
    """PSI used for a test: IL COMANDANTE lends its PSI to allies within SN x 10 (the lower
    target is the better one, since the test is 2D6 >= PSI)."""
    psi = stat(s, cfg, b, side, i, PF_PSI)
    c = s.g[b, G_CMD0 + side]
    if c >= 0 and c != i and is_active(s, b, side, c):
        if model_distance(s, cfg, b, side, c, side, i) <= 10.0 * stat(s, cfg, b, side, c, PF_SN):
            psi = min(psi, stat(s, cfg, b, side, c, PF_PSI))
    return psi


@kernel(cache=True)
def morale_malus(s, cfg, b, side, i):
    """IL MORALE: -1 for each morale marker beyond the model's CAR (option
    morale_markers="each": for every marker)."""
    m = s.md[b, side, i, MD_MORALE]
    if cfg.k[K_MORALE_EACH]:
        return m
    return max(0, m - stat(s, cfg, b, side, i, PF_CAR))


@kernel(cache=True)
def discipline_test(s, cfg, b, side, i, mod, kind):
    """LA DISCIPLINA: 2D6 + bonus/malus >= PSI; a natural 2 fails, 12 succeeds (TEST).
    The commander repeats a failed test once (IL COMANDANTE: "può anche ripetere tutti i test
    basati sulla Psiche"; TEST: "un test può essere ripetuto una sola volta").  Each roll that
    is not a natural 2 or 12 goes through the ESPLORAZIONE bank (bank.py; ``kind`` is the
    layout.TK_* test it is, for the bank's owner)."""
    psi = effective_psi(s, cfg, b, side, i)
    total_mod = mod - morale_malus(s, cfg, b, side, i)
    tries = 2 if s.g[b, G_CMD0 + side] == i else 1
    for _ in range(tries):
        r1 = d6(s, b)
        r2 = d6(s, b)
        r = r1 + r2
        if r == 12:
            return True
        if r == 2:
            continue
        margin = r + total_mod - psi
        if bank_roll(s, cfg, b, side, i, kind, margin >= 0, margin):
            return True
    return False


@kernel(cache=True)
def live_count(s, b, side):
    n = 0
    for i in range(N_SLOTS):
        if is_active(s, b, side, i):
            n += 1
    return n


@kernel(cache=True)
def car_of(cfg, profile):
    return cfg.pf[profile, PF_CAR]
