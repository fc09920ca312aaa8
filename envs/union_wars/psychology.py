"""LO STATO PSICOLOGICO: suppression, pinning and command tests (LA FASE DI CONTROLLO,
LA FASE DI COMANDO).  Morale markers and the discipline test itself are in general.py.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .general import discipline_test, has_flag, is_active, on_table, stat
from .layout import (TK_COMMAND, TK_PINNING, TK_SUPPRESSION, F_PIN_TEST, F_PRONE, F_SUPPRESSED, F_WOUNDED, G_CMD0, G_START0, G_TURN, MD_FLAGS, MD_PRONE_UNTIL,
                     MD_STATUS, N_SLOTS, OOC, PF_PSI, PF_TYPE, REMOVED, TYPE_QG, ABSENT, RESERVE)


@kernel(cache=True)
def go_prone(s, b, side, i):
    """A TERRA: "non può fare nulla fino alla fase finale del turno seguente"."""
    s.md[b, side, i, MD_FLAGS] |= F_PRONE
    s.md[b, side, i, MD_PRONE_UNTIL] = s.g[b, G_TURN] + 1


@kernel(cache=True)
def control_phase(s, cfg, b, order_side):
    """LA FASE DI CONTROLLO: pinning tests, then suppression tests for models wounded this
    turn and not eliminated (order: the active player's models first, slot order; the
    order changes nothing but which dice each test reads)."""
    for k in range(2):
        side = order_side if k == 0 else 1 - order_side
        for i in range(N_SLOTS):
            if has_flag(s, b, side, i, F_PIN_TEST) and is_active(s, b, side, i) and not has_flag(s, b, side, i, F_PRONE):
                # IL TEST DI INCHIODAMENTO: failed = pinned and down; "un modello già a terra ignora il test"
                if not discipline_test(s, cfg, b, side, i, 0, TK_PINNING):
                    go_prone(s, b, side, i)
    for k in range(2):
        side = order_side if k == 0 else 1 - order_side
        for i in range(N_SLOTS):
            if has_flag(s, b, side, i, F_WOUNDED) and is_active(s, b, side, i):
                # IL TEST DI SOPPRESSIONE: failed = suppressed; failed again while suppressed = flees
                if not discipline_test(s, cfg, b, side, i, 0, TK_SUPPRESSION):
                    if has_flag(s, b, side, i, F_SUPPRESSED):
                        s.md[b, side, i, MD_STATUS] = REMOVED
                    else:
                        s.md[b, side, i, MD_FLAGS] |= F_SUPPRESSED
    for side in range(2):
        for i in range(N_SLOTS):
            s.md[b, side, i, MD_FLAGS] &= ~(F_PIN_TEST | F_WOUNDED)


@kernel(cache=True)
def losses(s, b, side):
    """Models removed or out of combat (IL TEST DI COMANDO)."""
    n = 0
    for i in range(N_SLOTS):
        st = s.md[b, side, i, MD_STATUS]
        if st == REMOVED or st == OOC:
            n += 1
    return n


@kernel(cache=True)
def choose_commander(s, cfg, b, side):
    """IL COMANDANTE: a fallen commander is replaced, from QG while any is left (the model
    with the best PSI; the seed lets the player choose, RULES.md)."""
    c = s.g[b, G_CMD0 + side]
    if c >= 0 and is_active(s, b, side, c):
        return
    best, best_key = -1, 999
    for i in range(N_SLOTS):
        if not is_active(s, b, side, i):
            continue
        key = stat(s, cfg, b, side, i, PF_PSI) + (0 if stat(s, cfg, b, side, i, PF_TYPE) == TYPE_QG else 100)
        if key < best_key:
            best, best_key = i, key
    s.g[b, G_CMD0 + side] = best


@kernel(cache=True)
def command_test_needed(s, b, side):
    """IL TEST DI COMANDO: "più della metà di perdite"."""
    return 2 * losses(s, b, side) > s.g[b, G_START0 + side]


@kernel(cache=True)
def command_test(s, cfg, b, side):
    """Returns False if the forces retreat (the opponent wins)."""
    c = s.g[b, G_CMD0 + side]
    if c < 0:
        return False
    return discipline_test(s, cfg, b, side, c, 0, TK_COMMAND)
