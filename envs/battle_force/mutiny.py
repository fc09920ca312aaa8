"""SFBF Ammutinamento Klingon, a card played instead of an attack: which ship it may target, and the
mutiny's die (1-3 that much damage, 4-6 the ship changes sides).  The card's own condition (the first
attack of a turn, an enemy Klingon ship to target) is the attack phase's, attack.attack_phase_card_reason,
which asks ``mutiny_target_ok``; the damage a low roll deals is resolved as any attack's
(resolution.begin_damage, called by actions.py with what ``resolve_mutiny`` returns).
"""
from __future__ import annotations

from ..core.kernel import kernel
from ..core.rng import roll_die
from .layout import (G_ACTIVE, G_DIE1, G_ENDED, G_PT_ADD, G_PT_SUB, G_ROLL, G_TARGET, K_END_ELIM, L_RESERVE, L_SCREEN,
                     RACE_KLINGON, SC_RACE, SH_CLOAK, SH_LINE, SH_OWNER, SH_WEB)
from .players import enemies
from .ships import fleet_size, in_fleet, uses_formation
from .cards import clear_ship_cards
from .formation import forced_advance, place_ship


@kernel(cache=True, forceinline=True)
def mutiny_target_ok(s, cfg, b, p, i):
    """SFBF Ammutinamento Klingon: an enemy Klingon ship, not in the reserve."""
    if not in_fleet(s, b, i) or cfg.ship[i, SC_RACE] != RACE_KLINGON:
        return False
    q = s.sh[b, i, SH_OWNER]
    if not enemies(s, cfg, b, p, q):
        return False
    return not (uses_formation(cfg) and s.sh[b, i, SH_LINE] == L_RESERVE)


@kernel(cache=True)
def resolve_mutiny(s, cfg, b):
    """SFBF Ammutinamento Klingon: the die, with the Prime Teams' +1s and -1s; 4-6 the target joins the
    mutineer's fleet (its cards, cloak and web gone; its old owner's line closes up); returns the damage a
    roll of 1-3 deals (0 when the ship was captured or the roll fell below 1)."""
    d = roll_die(s.rng, s.dice_script, s.dice, b, 6)
    s.g[b, G_DIE1] = d
    r = d + s.g[b, G_PT_ADD] - s.g[b, G_PT_SUB]
    s.g[b, G_ROLL] = r
    if r < 4:
        return max(r, 0)
    t = s.g[b, G_TARGET]
    owner = s.sh[b, t, SH_OWNER]
    clear_ship_cards(s, cfg, b, t)
    s.sh[b, t, SH_CLOAK] = 0
    s.sh[b, t, SH_WEB] = 0
    place_ship(s, cfg, b, t, s.g[b, G_ACTIVE], L_RESERVE if uses_formation(cfg) else L_SCREEN)
    forced_advance(s, cfg, b, owner)
    if cfg.k[K_END_ELIM] and fleet_size(s, b, owner) == 0:
        s.g[b, G_ENDED] = 1
    return 0
