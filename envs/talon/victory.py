"""Scenario victory conditions (RULES.md 'Victory conditions').

The rulebook decides a battle by the ship points each side destroyed ("Navi distrutte da tessere
terreno contano per il calcolo della vittoria", 17; "I missili distrutti non contano ai fini del
grado di vittoria", 13) and leaves the rest to the scenario: retreat "se richiesto dallo scenario"
(11.1.1), docking and landing "solo quando richiesto per raggiungere l'obiettivo di uno scenario"
(16.1), worm holes "di solito per raggiungere l'obiettivo di uno scenario" (19).  A scenario dict's
``victory`` field (game.parse_victory) states such objectives as up to N_VC conditions, each for
one player:

* ``destroy``: at once, when COUNT of the named enemy ships are destroyed;
* ``escape``: at once, when COUNT of the named own ships have left the battle alive (a jump to FTL,
  a worm hole, off the map, a landing; a ship docked aboard a carrier once the carrier has gone);
* ``points``: at once, when the player has destroyed COUNT ship points;
* ``hold``: at the end of the game, when COUNT of the named own ships are still in play (or docked
  aboard a ship that is).

A player who meets a condition wins; both at the same moment is a draw.  When the game ends with no
condition met, ``otherwise`` decides: the rulebook's points (the default), one player, or a draw.
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.structs import borrow
from .ships import host_of
from .layout import (G_DONE, G_SP0, G_STAGE, G_VC, G_VC_MET, G_VC_OTHERWISE, G_WINNER, N_VC, N_VCF,
                     SH_STATUS, SS_ACTIVE, SS_DESTROYED, SS_RETREATED, ST_OVER, VC_COUNT, VC_KIND, VC_PLAYER,
                     VC_SHIPS, VK_DESTROY, VK_ESCAPE, VK_HOLD, VK_NONE, VK_POINTS)


@kernel(cache=True, inline="always")
def has_conditions(g, b):
    """The game has victory conditions (conditions are written from the first slot on)."""
    return g[b, G_VC + VC_KIND] != VK_NONE


@kernel(cache=True)
def _host_status(sh, b, p, k):
    """The status of ship ``k`` as a condition counts it: a ship docked aboard a friendly carrier or
    base shares its host's fate (16.3), so it is in play, gone or destroyed with it."""
    host = host_of(sh, b, p, k)
    return sh[b, p, k, SH_STATUS] if host < 0 else sh[b, p, host, SH_STATUS]


@kernel(cache=True)
def progress(s, b, i):
    """How far condition ``i`` is: named ships in the state it asks for, or the points destroyed."""
    g = borrow(s.g)
    sh = borrow(s.sh)
    o = G_VC + i * N_VCF
    kind = g[b, o + VC_KIND]
    p = g[b, o + VC_PLAYER]
    if kind == VK_POINTS:
        return g[b, G_SP0 + p]
    side = 1 - p if kind == VK_DESTROY else p
    want = SS_DESTROYED if kind == VK_DESTROY else SS_RETREATED if kind == VK_ESCAPE else SS_ACTIVE
    mask = g[b, o + VC_SHIPS]
    n = 0
    for k in range(sh.shape[2]):
        if (mask >> k) & 1:
            st = sh[b, side, k, SH_STATUS] if kind == VK_DESTROY else _host_status(sh, b, side, k)
            n += st == want
    return n


@kernel(cache=True)
def conditions_met(s, b, at_end):
    """Bitmask of the conditions met now: the at-once kinds always, ``hold`` only at the end."""
    g = borrow(s.g)
    met = 0
    for i in range(N_VC):
        kind = g[b, G_VC + i * N_VCF + VC_KIND]
        if kind == VK_NONE or (kind == VK_HOLD and not at_end):
            continue
        if progress(s, b, i) >= g[b, G_VC + i * N_VCF + VC_COUNT]:
            met |= 1 << i
    return met


@kernel(cache=True)
def winner_of(s, b, met):
    """-1 nobody, 0/1 the player whose conditions are met, 2 both (a draw)."""
    g = borrow(s.g)
    players = 0
    for i in range(N_VC):
        if (met >> i) & 1:
            players |= 1 << g[b, G_VC + i * N_VCF + VC_PLAYER]
    return -1 if players == 0 else 2 if players == 3 else players >> 1


@kernel(cache=True)
def decided_at_once(s, b):
    """An at-once condition is met: the game ends now with its player the winner (or a draw when both
    players met one together).  Called as the game advances; free when there are no conditions."""
    g = borrow(s.g)
    if not has_conditions(g, b) or g[b, G_DONE]:
        return False
    met = conditions_met(s, b, False)
    if met == 0:
        return False
    g[b, G_VC_MET] = met
    g[b, G_DONE] = 1
    g[b, G_STAGE] = ST_OVER
    g[b, G_WINNER] = winner_of(s, b, met)
    return True


@kernel(cache=True)
def winner_at_end(s, b):
    """The winner when the game ends (last round over, or a side with nothing left in play): a met
    condition, else ``otherwise``; -1 when the conditions leave it to the ship points."""
    g = borrow(s.g)
    if not has_conditions(g, b):
        return -1
    met = conditions_met(s, b, True)
    g[b, G_VC_MET] = met
    if met:
        return winner_of(s, b, met)
    return g[b, G_VC_OTHERWISE] - 1      # 0 -> -1 the points; 1, 2 a player; 3 -> 2 a draw


@kernel(cache=True)
def named_by(g, b, p, kind, k):
    """A condition of ``kind`` for player ``p`` names ship slot ``k`` (of the side that kind names)."""
    for i in range(N_VC):
        o = G_VC + i * N_VCF
        if g[b, o + VC_KIND] == kind and g[b, o + VC_PLAYER] == p and (g[b, o + VC_SHIPS] >> k) & 1:
            return True
    return False
