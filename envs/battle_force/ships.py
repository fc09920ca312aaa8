"""A ship card's state as the rules read it: in play, in the battle line, its damage, its undamaged
symbols, its cloak and web markers, the size of a fleet (SFBF Le carte nave, Regole sulla Formazione).
"""
from __future__ import annotations

from ..core.kernel import kernel
from .layout import (K_ADVANCED, K_FORMATION, K_TRAD, L_RESERVE, N_KIND, SC_N, SC_SPACES, SH_CLOAK, SH_COV, SH_LINE,
                     SH_LOC, SH_OWNER, SH_WEB, SL_FLEET)


@kernel(cache=True, forceinline=True)
def uses_formation(cfg):
    return cfg.k[K_ADVANCED] != 0 and cfg.k[K_FORMATION] != 0


@kernel(cache=True, inline="always")
def in_fleet(s, b, i):
    return s.sh[b, i, SH_LOC] == SL_FLEET


@kernel(cache=True, inline="always")
def own_ship(s, b, p, i):
    """Ship i is in play in player p's fleet: the ships whose actions p decides (formation, attack,
    carrier, cloak and web, repair, fire at fighters and PF Flotillas) and whose cards p links."""
    return s.sh[b, i, SH_LOC] == SL_FLEET and s.sh[b, i, SH_OWNER] == p


@kernel(cache=True, inline="always")
def in_battle_line(s, b, i):
    """In play and not in the reserve squadron (SFBF Regole sulla Formazione)."""
    return s.sh[b, i, SH_LOC] == SL_FLEET and s.sh[b, i, SH_LINE] != L_RESERVE


@kernel(cache=True, forceinline=True)
def damage_of(s, b, i):
    n = 0
    sh = s.sh
    for k in range(N_KIND):
        n += sh[b, i, SH_COV + k]
    return n


@kernel(cache=True)
def free_spaces(s, cfg, b, i):
    return cfg.ship[i, SC_SPACES] - damage_of(s, b, i)


@kernel(cache=True, forceinline=True)
def symbols(s, cfg, b, i, k):
    """Undamaged symbols of kind k (traditional rules: damage never disables a weapon)."""
    n = cfg.ship[i, SC_N + k]
    if cfg.k[K_TRAD]:
        return n
    return n - s.sh[b, i, SH_COV + k]


@kernel(cache=True, forceinline=True)
def cloaked(s, b, i):
    return s.sh[b, i, SH_CLOAK] != 0


@kernel(cache=True, forceinline=True)
def webbed(s, b, i):
    return s.sh[b, i, SH_WEB] != 0


@kernel(cache=True, forceinline=True)
def fleet_size(s, b, p):
    n = 0
    for i in range(s.sh.shape[1]):
        n += own_ship(s, b, p, i)
    return n
