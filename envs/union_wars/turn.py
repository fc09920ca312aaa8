"""TURNO DI GIOCO: a turn's phases (LA FASE DI COMANDO, LA FASE TATTICA, LA FASE FINALE), the
end of the game when a mission ends it early or the last turn is played, and the return from a melee
(consolidation) to the tactical phase.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .bank import bank_amount
from .battle import final_result, sudden_end
from .general import d6, game_test_d6, stat, test_d6
from .layout import *  # noqa: F401,F403  (the named columns and codes)
from .melee import melee_continue, melee_start
from .psychology import choose_commander, command_test, command_test_needed, control_phase
from .sight import reveal_hidden


@kernel(cache=True)
def end_game(s, b, winner):
    s.g[b, G_WINNER] = winner
    s.g[b, G_DONE] = 1
    s.g[b, G_STAGE] = ST_OVER


@kernel(cache=True)
def check_sudden(s, cfg, b):
    w = sudden_end(s, cfg, b)
    if w >= 0:
        end_game(s, b, w)
        return True
    return False


@kernel(cache=True)
def start_turn(s, cfg, b):
    """LA FASE DI COMANDO, then the tactical phase."""
    if refresh_turn(s, cfg, b):
        command_phase_rolls(s, cfg, b)


@kernel(cache=True)
def refresh_turn(s, cfg, b):
    """The start of a player turn: commanders, charisma, this turn's memory.  Returns False if
    the game ended (a side has no model left)."""
    p = s.g[b, G_ACTIVE]
    for side in range(2):
        choose_commander(s, cfg, b, side)
        for i in range(N_SLOTS):
            # "ogni turno i punti carisma si rigenerano" (option charisma_refresh)
            if side == p or not cfg.k[K_CAR_REFRESH]:
                s.md[b, side, i, MD_CAR] = stat(s, cfg, b, side, i, PF_CAR)
            s.md[b, side, i, MD_USED] = 0
            s.md[b, side, i, MD_REACTED] = 0
        c = s.g[b, G_CMD0 + side]
        if c >= 0:
            s.md[b, side, c, MD_CMD_BONUS] = stat(s, cfg, b, side, c, PF_CARB)
    # AREA DI CONTROLLO: "i modelli nascosti entro tale area vengono individuati": a FLASHBANG that
    # ran out at the end of the turn gives an area back (RULES.md)
    reveal_hidden(s, cfg, b)
    return not check_sudden(s, cfg, b)


@kernel(cache=True)
def command_phase_rolls(s, cfg, b):
    """LA FASE DI COMANDO's rolls (the command test, the reserves), then the tactical phase."""
    p = s.g[b, G_ACTIVE]
    # IL TEST DI COMANDO
    if command_test_needed(s, b, p) and not command_test(s, cfg, b, p):
        end_game(s, b, 1 - p)
        return
    # LE RISERVE: 4+ to enter, placed in the deployment zone
    entering = False
    for i in range(N_SLOTS):
        if s.md[b, p, i, MD_STATUS] == RESERVE and (s.md[b, p, i, MD_FLAGS] & F_KEPT):
            if test_d6(s, cfg, b, p, i, 4, 0, TK_RESERVE):
                s.md[b, p, i, MD_FLAGS] |= F_ENTERING
                entering = True
    if entering:
        s.g[b, G_RESERVE_PLACING] = 1
        s.g[b, G_STAGE] = ST_DEPLOY
        s.g[b, G_DECIDER] = p
        return
    enter_tactical(s, cfg, b)


@kernel(cache=True)
def enter_tactical(s, cfg, b):
    s.g[b, G_STAGE] = ST_SELECT
    s.g[b, G_DECIDER] = s.g[b, G_ACTIVE]


@kernel(cache=True)
def final_phase(s, cfg, b):
    """LA FASE FINALE: remove the markers no longer needed."""
    t = s.g[b, G_TURN]
    for side in range(2):
        for i in range(N_SLOTS):
            f = s.md[b, side, i, MD_FLAGS]
            if (f & F_PRONE) and s.md[b, side, i, MD_PRONE_UNTIL] <= t:
                f &= ~F_PRONE
            f &= ~(F_AIMED | F_CONCENTRATED | F_RECOVERED | F_SATURATED | F_COVER | F_ENTERING | F_WON)
            s.md[b, side, i, MD_FLAGS] = f
    for q in range(MAX_SMOKE):
        # FUMOGENO: from the turn after it was placed, 4+ in the final phase clears it
        if s.smoke[b, q, 2] > 0 and s.smoke[b, q, 2] - 1 < t and game_test_d6(s, cfg, b, 4, TK_SMOKE):
            s.smoke[b, q, 2] = 0
    s.g[b, G_SEGN0] = 0
    s.g[b, G_SEGN1] = 0
    s.g[b, G_COORD0] = 0
    s.g[b, G_COORD1] = 0
    s.g[b, G_CONTROLLED] = -1   # CONTROLLO: "alla fine del turno il modello torna sotto il controllo"
    s.g[b, G_BONUS0] = 0
    s.g[b, G_BONUS1] = 0


@kernel(cache=True)
def end_tactical(s, cfg, b):
    """End of the tactical phase: LA FASE DI MISCHIA, DI CONTROLLO, FINALE, next turn."""
    melee_start(s, cfg, b)
    melee_resume(s, cfg, b)


@kernel(cache=True)
def melee_resume(s, cfg, b):
    """LA MISCHIA: fight until an attacker's owner chooses its target or weapon (stages *melee
    target* / *melee weapon*: the attacker is G_ACTOR_SIDE / G_ACTOR, its chosen target G_TGT),
    then the consolidations."""
    side, i, kind = melee_continue(s, cfg, b)
    if kind != 0:
        s.g[b, G_STAGE] = ST_MELEE_TARGET if kind == 1 else ST_MELEE_WEAPON
        s.g[b, G_DECIDER] = side
        s.g[b, G_ACTOR_SIDE] = side
        s.g[b, G_ACTOR] = i
        s.g[b, G_TGT] = s.md[b, side, i, MD_MELEE_TGT] if kind == 2 else -1
        return
    if check_sudden(s, cfg, b):
        return
    next_consolidation(s, cfg, b)


@kernel(cache=True)
def next_consolidation(s, cfg, b):
    """LA MISCHIA: each winner in turn (the active player's first) may consolidate 2D6 cm, then
    the control phase follows."""
    # the engagements ended (winners have a control area again) or a winner consolidated: hidden
    # models inside an area "vengono individuati" (AREA DI CONTROLLO)
    reveal_hidden(s, cfg, b)
    for k in range(2):
        side = s.g[b, G_ACTIVE] if k == 0 else 1 - s.g[b, G_ACTIVE]
        for i in range(N_SLOTS):
            if (s.md[b, side, i, MD_FLAGS] & F_WON) and (stat(s, cfg, b, side, i, PF_RULES) & SR_IMMOBILE):
                s.md[b, side, i, MD_FLAGS] &= ~F_WON   # IMMOBILE: "non può muovere" (no consolidation)
                continue
            if s.md[b, side, i, MD_FLAGS] & F_WON:
                # 2D6 cm, an amount roll the ESPLORAZIONE bank may move
                s.g[b, G_CONSOL] = bank_amount(s, cfg, b, side, i, TK_CONSOLIDATION, d6(s, b) + d6(s, b), True, 0)
                s.g[b, G_STAGE] = ST_CONSOLIDATE
                s.g[b, G_DECIDER] = side
                s.g[b, G_RSLOT] = i
                return
    s.g[b, G_RSLOT] = -1
    after_melee(s, cfg, b)


@kernel(cache=True)
def after_melee(s, cfg, b):
    control_phase(s, cfg, b, s.g[b, G_ACTIVE])
    if check_sudden(s, cfg, b):
        return
    final_phase(s, cfg, b)
    s.g[b, G_TURN] += 1
    if s.g[b, G_TURN] >= s.g[b, G_MAX_TURNS]:
        # IL TEMPO (option): 4+ and both players play another turn
        if cfg.k[K_TIME] and game_test_d6(s, cfg, b, 4, TK_TIME):
            s.g[b, G_MAX_TURNS] += 1 if cfg.k[K_TURNS_TOTAL] else 2
        else:
            end_game(s, b, final_result(s, cfg, b))
            return
    s.g[b, G_ACTIVE] = 1 - s.g[b, G_ACTIVE]
    start_turn(s, cfg, b)
