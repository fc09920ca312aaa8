"""Formation (SFBF Sequenza di gioco 3, Regole sulla Formazione, Navi di Riserva; Occultamento,
Ragnatela): the three lines, one move out of each line per phase, the forced advance of an empty
screen, and switching a cloak or web on.
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (G_FORM_KIND, G_FORM_MOVES, G_MOVED, G_POS, G_SEL, G_STAGE, K_ADVANCED, K_NS, LINES, L_MAIN,
                     L_RESERVE, L_SCREEN, OK, R_LEAVE_EMPTY, R_LINE_MOVE, R_MUST_RESERVE, R_NEED_FRONT, R_NOT_ADVANCED,
                     R_NOT_YOURS, R_ONCE, R_RESERVE_FULL, R_SHIP_STATE, R_STAGE, SC_CLOAK, SC_WEB, SH_CLOAK, SH_DOWN,
                     SH_LINE, SH_LOC, SH_OWNER, SH_WEB, SH_WW, SL_FLEET, ST_FORMATION, ST_FORM_DEST)
from .players import set_stage
from .ships import damage_of, own_ship, uses_formation


@kernel(cache=True, forceinline=True)
def count_line(s, b, p, line):
    """Player p's ships in ``line`` (L_SCREEN, L_MAIN or L_RESERVE)."""
    return fleet_lines(s, b, p)[line]


@kernel(cache=True)
def place_ship(s, cfg, b, i, p, line):
    s.sh[b, i, SH_LOC] = SL_FLEET
    s.sh[b, i, SH_OWNER] = p
    s.sh[b, i, SH_LINE] = line
    s.sh[b, i, SH_DOWN] = 1 if (line == L_RESERVE and damage_of(s, b, i) == 0) else 0
    s.g[b, G_POS] += 1
    s.pos[b, i] = s.g[b, G_POS]


@kernel(cache=True)
def set_line(s, cfg, b, i, line):
    """Change line; an undamaged ship entering the reserve goes face down (SFBF Navi di Riserva)."""
    s.sh[b, i, SH_LINE] = line
    if line == L_RESERVE:
        s.sh[b, i, SH_DOWN] = 1 if damage_of(s, b, i) == 0 else 0
    else:
        s.sh[b, i, SH_DOWN] = 0


@kernel(cache=True)
def forced_advance(s, cfg, b, p):
    """SFBF Regole sulla Formazione, Avanzamento Forzato: an empty screen pulls the main body forward."""
    if not uses_formation(cfg):
        return
    if count_line(s, b, p, L_SCREEN) == 0 and count_line(s, b, p, L_MAIN) > 0:
        for i in range(cfg.k[K_NS]):
            if own_ship(s, b, p, i) and s.sh[b, i, SH_LINE] == L_MAIN:
                set_line(s, cfg, b, i, L_SCREEN)


@kernel(cache=True, forceinline=True)
def device_reason(s, cfg, b, p, i):
    """May ship i switch on its cloak (Romulan, Orion) or web (Tholian)?  Advanced game only."""
    if not cfg.k[K_ADVANCED]:
        return R_NOT_ADVANCED
    if not own_ship(s, b, p, i):
        return R_NOT_YOURS
    if not (cfg.ship[i, SC_CLOAK] or cfg.ship[i, SC_WEB]):
        return R_SHIP_STATE
    if s.sh[b, i, SH_CLOAK] or s.sh[b, i, SH_WEB]:
        return R_ONCE
    if uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE:
        return R_SHIP_STATE
    return OK


@kernel(cache=True)
def activate_device(s, cfg, b, i):
    if cfg.ship[i, SC_CLOAK]:
        s.sh[b, i, SH_CLOAK] = 1
    else:
        s.sh[b, i, SH_WEB] = 1


@kernel(cache=True, forceinline=True)
def fleet_lines(s, b, p):
    """Player p's ships in the screen, the main body and the reserve, and the reserve ships
    free to move (no Wild Weasel, no web), in one pass over the ships: the formation rules
    need these counts for every ship and line while the formation mask is built."""
    sh = s.sh
    screen = 0
    main = 0
    reserve = 0
    free_reserve = 0
    for i in range(sh.shape[1]):
        if own_ship(s, b, p, i):
            line = sh[b, i, SH_LINE]
            if line == L_SCREEN:
                screen += 1
            elif line == L_MAIN:
                main += 1
            elif line == L_RESERVE:
                reserve += 1
                if not sh[b, i, SH_WW] and not sh[b, i, SH_WEB]:
                    free_reserve += 1
    return screen, main, reserve, free_reserve


@kernel(cache=True, forceinline=True)
def move_reason_ship(s, cfg, b, p, i, line):
    """The conditions of a formation change that concern ship i alone (checked first: cheap)."""
    if not uses_formation(cfg):
        return R_NOT_ADVANCED
    if not own_ship(s, b, p, i):
        return R_NOT_YOURS
    if s.sh[b, i, SH_LINE] == line:
        return R_LINE_MOVE
    if s.sh[b, i, SH_WW] or s.sh[b, i, SH_WEB]:
        return R_SHIP_STATE      # Wild Weasel or web: no formation change
    return OK


@kernel(cache=True, forceinline=True)
def move_reason_lines(s, b, i, line, lines):
    """The conditions of a formation change that depend on the line counts ``fleet_lines``."""
    screen, main, reserve, _ = lines
    frm = s.sh[b, i, SH_LINE]
    if (s.g[b, G_MOVED] & (1 << frm)) and not (frm == L_RESERVE and reserve > 2):
        return R_LINE_MOVE
    if line == L_RESERVE:
        if reserve >= 2:
            return R_RESERVE_FULL
        if screen + main <= 1:
            return R_LEAVE_EMPTY
    return OK


@kernel(cache=True, forceinline=True)
def move_reason(s, cfg, b, p, i, line):
    """A formation change: one ship out of each line per phase (SFBF Sequenza di gioco 3 (X),
    Regole sulla Formazione)."""
    r = move_reason_ship(s, cfg, b, p, i, line)
    if r != OK:
        return r
    return move_reason_lines(s, b, i, line, fleet_lines(s, b, p))


@kernel(cache=True, forceinline=True)
def activation_reason(s, cfg, b, p, i):
    r = device_reason(s, cfg, b, p, i)
    if r != OK:
        return r
    # switching a device on costs the formation move of the ship's line
    bit = (1 << s.sh[b, i, SH_LINE]) if uses_formation(cfg) else 1
    if s.g[b, G_MOVED] & bit:
        return R_LINE_MOVE
    return OK


@kernel(cache=True, forceinline=True)
def formation_done_reason(s, cfg, b, p):
    if not uses_formation(cfg):
        return OK
    screen, main, reserve, movable = fleet_lines(s, b, p)
    if reserve > 2 and movable > 0:
        return R_MUST_RESERVE    # the reserve goes back down to two this phase
    if screen + main == 0 and movable > 0:
        return R_NEED_FRONT      # no ship in screen or main body: one comes out of the reserve
    return OK


@kernel(cache=True, forceinline=True)
def formation_ship_reason(s, cfg, b, p, i, lines):
    """Ship action in the formation phase: move ship i (then choose the line), or switch its
    cloak or web; ``lines`` are p's ``fleet_lines``."""
    if not own_ship(s, b, p, i):
        return R_NOT_YOURS
    for line in range(LINES):
        if move_reason_ship(s, cfg, b, p, i, line) == OK and move_reason_lines(s, b, i, line, lines) == OK:
            return OK
    if activation_reason(s, cfg, b, p, i) == OK:
        return OK
    if s.sh[b, i, SH_CLOAK] and s.g[b, G_FORM_KIND] == 1:
        return OK
    return R_LINE_MOVE


@kernel(cache=True, inline="always")
def activate_selected(s, cfg, b, p):
    """The cloak or web of the ship being moved, at the cost of its line's move (SFBF Sequenza di gioco 3 (X))."""
    i = s.g[b, G_SEL]
    activate_device(s, cfg, b, i)
    s.g[b, G_MOVED] |= (1 << s.sh[b, i, SH_LINE]) if uses_formation(cfg) else 1
    s.g[b, G_FORM_MOVES] += 1
    set_stage(s, b, ST_FORMATION, p)


@kernel(cache=True, inline="always")
def deactivate_reason(s, cfg, b, p):
    """A cloak may be switched off in the formation phase (not the second change)."""
    if s.g[b, G_STAGE] != ST_FORM_DEST:
        return R_STAGE
    i = s.g[b, G_SEL]
    return OK if (s.sh[b, i, SH_CLOAK] and s.g[b, G_FORM_KIND] == 1) else R_SHIP_STATE


@kernel(cache=True, inline="always")
def deactivate_selected(s, cfg, b, p):
    s.sh[b, s.g[b, G_SEL], SH_CLOAK] = 0
    set_stage(s, b, ST_FORMATION, p)
