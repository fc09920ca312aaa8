"""Compiled opponents for Star Fleet Battle Force and the loops that let them play.

``policy_action`` (built by core/loops.py from the bot below) picks an action for game ``b`` from the legal mask of the player who
decides now (any seat: the defender, the attacker answering a defence, each player firing
at a PF Flotilla ...):

* ``RANDOM``: uniform over the legal actions, drawn from the game's own policy stream
  (``s.policy_rng``), so a bot never disturbs the game's dice or shuffles.

* ``HEURISTIC`` (policy names ``"heuristic"`` and ``"scripted"``, the name the wrappers and
  training scripts use): a deterministic heuristic player for any seat of an ordinary game,
  holding a hand like any player.  It borrows some habits of the rulebook's solitaire
  automaton (the first ship, the first enemy screen ship, every defence card used) but it is
  *not* the solitaire game: that is the option ``solitaire=True``, where the automaton holds
  no hand and plays inside the core (``rules.auto_action``, RULES.md 'Solitaire').  Decision
  by decision:

  - set-up: picks the first legal ship (points / draft) or race; keeps the first cards in
    hand as its two reserve cards; places its ships in random order (``policy_rng``) half
    in the screen, half in the main body (the automaton's "Prima Linea" / "Seconda Linea");
    never switches a cloak or web on.
  - draw: takes its reserve cards back first, then draws from the deck; keeps every card
    drawn (never to the reserve).
  - repair: plays a Damage Control or Legendary Engineer whenever it can, then continuous
    damage control, always on its most damaged ship (most markers; ties: the ship placed
    first, lowest ``pos``); it removes weapon markers before WPN, FTR and circle markers.
  - formation: Reinforcements at the first opportunity; brings a reserve ship back to the
    battle line (to the thinner of screen and main body) when one may move, otherwise makes
    no change (the automaton has no reserve), except the moves the rules force.
  - attack: special cards first (PF Flotilla, Klingon Mutiny, Planet-Based Fighters, as
    many as it holds); else it attacks with the ship that can fire the most weapon cards of
    its hand (ties: the most damage, then the lowest ``pos``) - the automaton's "first
    ship that can use each card" - at the first enemy ship in the screen (lowest
    ``pos``; in the main body only if no screen ship can be hit); it plays every usable
    attack card, strongest weapons first, then Overload / Enveloper / Scatterpack /
    Legendary Gunner on its strongest card, then Prime Team (cancelling a cloak, web or
    Wild Weasel when it can, else +1).  With no weapon attack it launches every fighter
    squadron of its best carrier; with no attack at all it plays an Organian Ceasefire if it
    holds one; with no weapon card in its hand at all it discards and redraws instead of
    attacking (else two hands of defence cards could pass to each other forever).  It
    never changes formation instead of attacking.
  - defence: plays every defence card it can, each time it may (Disengage first, since it
    ends the attack; phasers and drones against the strongest drone or plasma card), takes
    reserve cards into an empty hand to use them, fires every card it can at fighters and PF
    Flotillas, answers a defence with every ECCM, Tractor Beam and Prime Team it holds, and
    plays Prime Team in a mutiny.
  - damage it takes goes on circles first, then FTR, WPN and the weapon spaces from the last
    kind (Plasma-F) to the first (Phaser-1).
  - end of turn: discards one weapon card none of its ships can ever fire (or a multiplier
    with no weapon card in its hand to go with it) to the discard pile; otherwise keeps its hand.
  - tie-break duel: takes its most valuable ship; Ceasefire reserve: keeps the first cards.
  - anything else: the first legal action.

  Deterministic given the state; every choice is checked against the mask (an illegal
  choice falls back to the first legal action).

Entry points: ``policy_actions`` (what a policy would play now in every game; over
``(states, cfgs, masks, policy, actions)`` or ``policy_actions(core, policy)``), ``play_games``
(whole games, a policy per seat, in one compiled range kernel per thread: core/loops.py),
``play`` (its Python front end) and ``play_turns`` (learner action then opponent play, what
the SB3 wrapper calls).
"""
from __future__ import annotations

import sys

import numpy as np

from ..core.kernel import kernel
from ..core import loops
from ..core.loops import specialise_loops
from ..core.rng import draw_int
from ..core.sampling import first_legal, last_legal
from . import rules as _rules
from .ships import own_ship
from .rules import (CC_TYPE, CC_VALUE, CD_LOC, CD_WHO, CL_HAND, CX_CLOAK, G_CANCELS, G_DECIDER, G_DONE, G_RETURN,
                    G_SEL, G_STAGE, K_A_CARD, K_A_KIND, K_A_LINE, K_A_NAMED, K_A_NUM, K_A_RACE, K_A_SHIP, K_ADVANCED,
                    K_FORMATION, K_FTR, K_NC, K_NS, K_WPN, L_MAIN, L_RESERVE, L_SCREEN, N_ACTIVATE, N_CDC,
                    N_DONE, N_DRAW_DECK, N_FIGHTERS, N_KEEP, N_REDRAW, N_KIND, N_PT_ADD, N_PT_CANCEL, N_PT_CANCEL_WW, N_TO_DISCARD, N_WEAPONS,
                    OK, SC_N, SC_VP, SH_LINE, ST_ATK_CARDS, ST_ATTACK, ST_CARRIER,
                    ST_CEASE_KEEP, ST_CLOAK_SETUP, ST_DEFENCE, ST_DISC_DEST, ST_DISCARD, ST_DRAW, ST_DUEL_PICK,
                    ST_FORM_DEST, ST_FORMATION, ST_FTR_DEF, ST_KEEP, ST_LINE_SETUP, ST_LINK, ST_MUTINY_ATK,
                    ST_MUTINY_DEF, ST_PBF_MORE, ST_PF_FIRE, ST_PLACE, ST_PT_MODE, ST_REACT, ST_REPAIR, ST_REPAIR_SHIP,
                    ST_SQUADRONS, ST_TARGET, ST_UNMARK, T_CEASE, T_DC, T_DISENGAGE, T_DISR, T_DRONE, T_ENVELOPER,
                    T_LENG, T_MUTINY, T_OVERLOAD, T_PBF, T_PF, T_PHOTON, T_PLR, T_PLS, T_PRIME, T_REINF, T_SCATTER,
                    card_attack_value, cloaked, count_line, damage_of, has_attack_card, is_multiplier, is_phaser,
                    is_seeking, move_reason, range_limited, step_game, symbols, target_reason, webbed, wpn_needed)

RANDOM, HEURISTIC = loops.RANDOM, loops.SCRIPTED
# "scripted" is what the wrappers and training scripts call a game's built-in strong policy; the
# name "solitaire" is gone: the rulebook's solitaire game is the option solitaire=True
POLICIES = {"random": RANDOM, "heuristic": HEURISTIC, "scripted": HEURISTIC}


@kernel(cache=True)
def _named(cfg, mask, n):
    a = cfg.k[K_A_NAMED] + n
    return a if mask[a] else -1


@kernel(cache=True)
def _card_of_type(cfg, mask, typ):
    """First legal CARD action on a card of type ``typ``."""
    base = cfg.k[K_A_CARD]
    for c in range(cfg.k[K_NC]):
        if mask[base + c] and cfg.card[c, CC_TYPE] == typ:
            return base + c
    return -1


@kernel(cache=True)
def _pos_key(s, b, i):
    return s.pos[b, i]


# ---------------------------------------------------------------------------------
# attack planning
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def _fire_plan(s, cfg, b, p, ship, target):
    """(cards, damage): how many weapon cards of p's hand ``ship`` can fire together at
    ``target``, taken strongest first (one card per weapon symbol, SFBF 4.3), and their
    printed damage."""
    NC = cfg.k[K_NC]
    avail = np.zeros(N_KIND, dtype=np.int32)
    for k in range(N_KIND):
        avail[k] = symbols(s, cfg, b, ship, k)
    cnt = np.zeros(N_WEAPONS, dtype=np.int32)
    used = np.zeros(NC, dtype=np.bool_)
    n = 0
    tot = 0
    formation = cfg.k[K_ADVANCED] != 0 and cfg.k[K_FORMATION] != 0
    for it in range(NC):
        best, best_v = -1, -1
        for c in range(NC):
            if used[c] or s.cd[b, c, CD_LOC] != CL_HAND or s.cd[b, c, CD_WHO] != p:
                continue
            if cfg.card[c, CC_TYPE] >= N_WEAPONS:
                continue
            if cfg.card[c, CC_VALUE] > best_v:
                best, best_v = c, cfg.card[c, CC_VALUE]
        if best < 0:
            break
        used[best] = True
        t = cfg.card[best, CC_TYPE]
        if webbed(s, b, ship) and is_phaser(t):
            continue
        if formation and range_limited(t) and (s.sh[b, ship, SH_LINE] == L_MAIN
                                               or s.sh[b, target, SH_LINE] == L_MAIN):
            continue
        if is_seeking(t) and cloaked(s, b, target) and not (s.g[b, G_CANCELS] & CX_CLOAK):
            continue
        cnt[t] += 1
        need = wpn_needed(avail, cnt)
        if need < 0 or need > avail[K_WPN]:
            cnt[t] -= 1
            continue
        n += 1
        tot += best_v
    return n, tot


@kernel(cache=True)
def _better_target(s, b, i, j):
    """Is ship i ahead of ship j in the heuristic's order: screen first, then lowest pos?"""
    if j < 0:
        return True
    li = 0 if s.sh[b, i, SH_LINE] == L_SCREEN else 1
    lj = 0 if s.sh[b, j, SH_LINE] == L_SCREEN else 1
    if li != lj:
        return li < lj
    return _pos_key(s, b, i) < _pos_key(s, b, j)


@kernel(cache=True)
def _target_for(s, cfg, b, p, ship):
    """The target the heuristic would pick for ``ship``: the first enemy ship in the screen."""
    best = -1
    for j in range(cfg.k[K_NS]):
        if target_reason(s, cfg, b, p, j) != OK:
            continue
        if ship >= 0 and not has_attack_card(s, cfg, b, p, ship, j):
            continue
        if _better_target(s, b, j, best):
            best = j
    return best


@kernel(cache=True)
def _attack_ship(s, cfg, b, p, mask):
    """SHIP action of the attacker that fires the most cards of the hand, or -1."""
    base = cfg.k[K_A_SHIP]
    best, best_n, best_v = -1, 0, -1
    for i in range(cfg.k[K_NS]):
        if not mask[base + i]:
            continue
        t = _target_for(s, cfg, b, p, i)
        if t < 0:
            continue
        n, v = _fire_plan(s, cfg, b, p, i, t)
        if n == 0:
            continue
        better = n > best_n
        if n == best_n:
            better = v > best_v or (v == best_v and _pos_key(s, b, i) < _pos_key(s, b, best))
        if better:
            best, best_n, best_v = i, n, v
    return base + best if best >= 0 else -1


@kernel(cache=True)
def _attack_action(s, cfg, b, p, mask):
    for typ in (T_PF, T_MUTINY, T_PBF):
        a = _card_of_type(cfg, mask, typ)
        if a >= 0:
            return a
    a = _attack_ship(s, cfg, b, p, mask)
    if a >= 0:
        return a
    a = _named(cfg, mask, N_FIGHTERS)
    if a >= 0:
        return a
    a = _card_of_type(cfg, mask, T_CEASE)
    if a >= 0:
        return a
    if not _holds_weapon(s, cfg, b, p):
        # a hand without weapons (defence cards, say) is full and draws nothing: renew it,
        # or two such hands pass to each other forever
        a = _named(cfg, mask, N_REDRAW)
        if a >= 0:
            return a
    return _named(cfg, mask, N_DONE)


@kernel(cache=True)
def _holds_weapon(s, cfg, b, p):
    for t in range(N_WEAPONS):
        if _in_hand(s, cfg, b, p, t):
            return True
    return False


@kernel(cache=True)
def _target_action(s, cfg, b, mask):
    base = cfg.k[K_A_SHIP]
    best = -1
    for j in range(cfg.k[K_NS]):
        if mask[base + j] and _better_target(s, b, j, best):
            best = j
    return base + best if best >= 0 else -1


@kernel(cache=True)
def _atk_cards_action(s, cfg, b, mask):
    """Every usable attack card: weapons strongest first, then multipliers, then Prime Team."""
    base = cfg.k[K_A_CARD]
    best, best_v = -1, -1
    for c in range(cfg.k[K_NC]):
        if mask[base + c] and cfg.card[c, CC_TYPE] < N_WEAPONS and cfg.card[c, CC_VALUE] > best_v:
            best, best_v = c, cfg.card[c, CC_VALUE]
    if best >= 0:
        return base + best
    for c in range(cfg.k[K_NC]):
        if mask[base + c] and is_multiplier(cfg.card[c, CC_TYPE]):
            return base + c
    a = first_legal(mask, base, base + cfg.k[K_NC])
    if a >= 0:
        return a
    return _named(cfg, mask, N_DONE)


@kernel(cache=True)
def _link_action(s, cfg, b, mask):
    """Where a pending card goes: against the strongest attack card in defence, on the
    strongest own card for a multiplier; the first choice otherwise."""
    base = cfg.k[K_A_CARD]
    ret = s.g[b, G_RETURN]
    if ret != ST_DEFENCE and ret != ST_ATK_CARDS and ret != ST_FTR_DEF and ret != ST_PF_FIRE:
        return first_legal(mask, base, base + cfg.k[K_NC])
    best, best_v = -1, -1
    for x in range(cfg.k[K_NC]):
        if not mask[base + x]:
            continue
        v = card_attack_value(s, cfg, b, x) if ret == ST_DEFENCE else cfg.card[x, CC_VALUE]
        if v > best_v:
            best, best_v = x, v
    return base + best if best >= 0 else -1


@kernel(cache=True)
def _play_all(cfg, mask, first_type):
    """Play a legal card (``first_type`` before any other), else pass."""
    if first_type >= 0:
        a = _card_of_type(cfg, mask, first_type)
        if a >= 0:
            return a
    base = cfg.k[K_A_CARD]
    a = first_legal(mask, base, base + cfg.k[K_NC])
    if a >= 0:
        return a
    return _named(cfg, mask, N_DONE)


# ---------------------------------------------------------------------------------
# repair, formation, damage, discard
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def _most_damaged(s, cfg, b, mask):
    base = cfg.k[K_A_SHIP]
    best, best_d = -1, -1
    for i in range(cfg.k[K_NS]):
        if not mask[base + i]:
            continue
        d = damage_of(s, b, i)
        if d > best_d or (d == best_d and _pos_key(s, b, i) < _pos_key(s, b, best)):
            best, best_d = i, d
    return base + best if best >= 0 else -1


@kernel(cache=True)
def _repair_action(s, cfg, b, mask):
    a = _card_of_type(cfg, mask, T_DC)
    if a < 0:
        a = _card_of_type(cfg, mask, T_LENG)
    if a >= 0:
        return a
    a = _named(cfg, mask, N_CDC)
    if a >= 0:
        return a
    return _named(cfg, mask, N_DONE)


@kernel(cache=True)
def _formation_action(s, cfg, b, p, mask):
    a = _card_of_type(cfg, mask, T_REINF)
    if a >= 0:
        return a
    base = cfg.k[K_A_SHIP]
    # a reserve ship that may come back to the battle line
    for i in range(cfg.k[K_NS]):
        if mask[base + i] and s.sh[b, i, SH_LINE] == L_RESERVE and (
                move_reason(s, cfg, b, p, i, L_SCREEN) == OK or move_reason(s, cfg, b, p, i, L_MAIN) == OK):
            return base + i
    a = _named(cfg, mask, N_DONE)
    if a >= 0:
        return a
    return first_legal(mask, base, base + cfg.k[K_NS])


@kernel(cache=True)
def _form_dest_action(s, cfg, b, p, mask):
    i = s.g[b, G_SEL]
    lb = cfg.k[K_A_LINE]
    if i >= 0 and s.sh[b, i, SH_LINE] == L_RESERVE:
        cs = count_line(s, b, p, L_SCREEN)
        cm = count_line(s, b, p, L_MAIN)
        first, second = (L_SCREEN, L_MAIN) if cs <= cm else (L_MAIN, L_SCREEN)
        if mask[lb + first]:
            return lb + first
        if mask[lb + second]:
            return lb + second
    a = first_legal(mask, lb, lb + 3)
    if a >= 0:
        return a
    return _named(cfg, mask, N_ACTIVATE)


@kernel(cache=True)
def _line_setup_action(s, cfg, b, p, mask):
    """Random order, half the ships in the screen and half in the main body."""
    lb = cfg.k[K_A_LINE]
    n = 0
    left = 0
    for i in range(cfg.k[K_NS]):
        if own_ship(s, b, p, i):
            n += 1
            if s.sh[b, i, SH_LINE] < 0:
                left += 1
    slots = (n + 1) // 2 - count_line(s, b, p, L_SCREEN)
    if slots <= 0:
        line = L_MAIN
    elif slots >= left:
        line = L_SCREEN
    else:
        line = L_SCREEN if draw_int(s.policy_rng, b, max(left, 1)) < slots else L_MAIN
    if mask[lb + line]:
        return lb + line
    other = L_MAIN if line == L_SCREEN else L_SCREEN
    if mask[lb + other]:
        return lb + other
    return first_legal(mask, lb, lb + 3)


@kernel(cache=True)
def _fireable_by_fleet(s, cfg, b, p, t):
    """Could any of p's ships in play fire a weapon card of type t when undamaged?"""
    avail = np.zeros(N_KIND, dtype=np.int32)
    cnt = np.zeros(N_WEAPONS, dtype=np.int32)
    cnt[t] = 1
    for i in range(cfg.k[K_NS]):
        if not own_ship(s, b, p, i):
            continue
        for k in range(N_KIND):
            avail[k] = cfg.ship[i, SC_N + k]
        need = wpn_needed(avail, cnt)
        if need >= 0 and need <= avail[K_WPN]:
            return True
    return False


@kernel(cache=True)
def _in_hand(s, cfg, b, p, t):
    """Does p hold a card of type t?"""
    for c in range(cfg.k[K_NC]):
        if s.cd[b, c, CD_LOC] == CL_HAND and s.cd[b, c, CD_WHO] == p and cfg.card[c, CC_TYPE] == t:
            return True
    return False


@kernel(cache=True)
def _goes_with(s, cfg, b, p, t):
    """Could p fire a weapon card of type t, and does it hold one?"""
    return _in_hand(s, cfg, b, p, t) and _fireable_by_fleet(s, cfg, b, p, t)


@kernel(cache=True)
def _useless(s, cfg, b, p, c):
    """A weapon card none of p's ships can fire, or a multiplier with no weapon to go with it
    in p's hand.  (Judged by the fleet alone, a hand of multipliers was never discarded: a
    full hand draws nothing, so two heuristic bots could pass to each other forever.)"""
    t = cfg.card[c, CC_TYPE]
    if t < N_WEAPONS:
        return not _fireable_by_fleet(s, cfg, b, p, t)
    if t == T_OVERLOAD:
        return not (_goes_with(s, cfg, b, p, T_PHOTON) or _goes_with(s, cfg, b, p, T_DISR))
    if t == T_ENVELOPER:
        return not (_goes_with(s, cfg, b, p, T_PLS) or _goes_with(s, cfg, b, p, T_PLR))
    if t == T_SCATTER:
        return not _goes_with(s, cfg, b, p, T_DRONE)
    return False


@kernel(cache=True)
def _discard_action(s, cfg, b, p, mask):
    base = cfg.k[K_A_CARD]
    for c in range(cfg.k[K_NC]):
        if mask[base + c] and _useless(s, cfg, b, p, c):
            return base + c
    return _named(cfg, mask, N_DONE)


@kernel(cache=True)
def _duel_pick_action(s, cfg, b, mask):
    base = cfg.k[K_A_SHIP]
    best, best_v = -1, -1
    for i in range(cfg.k[K_NS]):
        if mask[base + i] and cfg.ship[i, SC_VP] > best_v:
            best, best_v = i, cfg.ship[i, SC_VP]
    return base + best if best >= 0 else -1


@kernel(cache=True)
def _carrier_action(s, cfg, b, mask):
    base = cfg.k[K_A_SHIP]
    best, best_v = -1, -1
    for i in range(cfg.k[K_NS]):
        if not mask[base + i]:
            continue
        v = symbols(s, cfg, b, i, K_FTR)
        if v > best_v or (v == best_v and _pos_key(s, b, i) < _pos_key(s, b, best)):
            best, best_v = i, v
    return base + best if best >= 0 else -1


# ---------------------------------------------------------------------------------
# the policy
# ---------------------------------------------------------------------------------
@kernel(cache=True)
def heuristic_action(s, cfg, b, mask):
    p = s.g[b, G_DECIDER]
    st = s.g[b, G_STAGE]
    k = cfg.k
    a = -1
    if st == ST_LINE_SETUP:
        a = _line_setup_action(s, cfg, b, p, mask)
    elif st == ST_CLOAK_SETUP:
        a = _named(cfg, mask, N_DONE)
    elif st == ST_DRAW:
        a = first_legal(mask, k[K_A_CARD], k[K_A_CARD] + k[K_NC])       # reserve cards first
        if a < 0:
            a = _named(cfg, mask, N_DRAW_DECK)
    elif st == ST_KEEP:
        a = _named(cfg, mask, N_KEEP)
    elif st == ST_REPAIR:
        a = _repair_action(s, cfg, b, mask)
    elif st == ST_REPAIR_SHIP:
        a = _most_damaged(s, cfg, b, mask)
    elif st == ST_UNMARK:
        a = first_legal(mask, k[K_A_KIND], k[K_A_NUM])                    # weapons first
    elif st == ST_FORMATION:
        a = _formation_action(s, cfg, b, p, mask)
    elif st == ST_FORM_DEST:
        a = _form_dest_action(s, cfg, b, p, mask)
    elif st == ST_ATTACK:
        a = _attack_action(s, cfg, b, p, mask)
    elif st == ST_CARRIER:
        a = _carrier_action(s, cfg, b, mask)
    elif st == ST_SQUADRONS:
        a = last_legal(mask, k[K_A_NUM], k[K_A_RACE])                      # every squadron
    elif st == ST_TARGET:
        a = _target_action(s, cfg, b, mask)
    elif st == ST_ATK_CARDS:
        a = _atk_cards_action(s, cfg, b, mask)
    elif st == ST_LINK:
        a = _link_action(s, cfg, b, mask)
    elif st == ST_PT_MODE:
        a = _named(cfg, mask, N_PT_CANCEL)
        if a < 0:
            a = _named(cfg, mask, N_PT_CANCEL_WW)
        if a < 0:
            a = _named(cfg, mask, N_PT_ADD)
    elif st == ST_DEFENCE:
        a = _play_all(cfg, mask, T_DISENGAGE)
    elif st == ST_REACT or st == ST_FTR_DEF or st == ST_PF_FIRE or st == ST_PBF_MORE:
        a = _play_all(cfg, mask, -1)
    elif st == ST_MUTINY_ATK or st == ST_MUTINY_DEF:
        a = _play_all(cfg, mask, T_PRIME)
    elif st == ST_PLACE:
        a = last_legal(mask, k[K_A_KIND], k[K_A_NUM])                     # circles first
    elif st == ST_DISCARD:
        a = _discard_action(s, cfg, b, p, mask)
    elif st == ST_DISC_DEST:
        a = _named(cfg, mask, N_TO_DISCARD)
    elif st == ST_DUEL_PICK:
        a = _duel_pick_action(s, cfg, b, mask)
    elif st == ST_CEASE_KEEP:
        a = _play_all(cfg, mask, -1)
    if a >= 0 and a < mask.shape[0] and mask[a]:
        return a
    return first_legal(mask, 0, mask.shape[0])


# The learner-versus-opponent loops, written once in envs/core/loops.py
LOOPS = specialise_loops("battle_force", step_game, heuristic_action, G_DONE, G_DECIDER, sources=(_rules, sys.modules[__name__]),
                         policies=POLICIES)
play_turns, play_games, policy_actions, play = LOOPS.play_turns, LOOPS.play_games, LOOPS.policy_actions, LOOPS.play
policy_action = LOOPS.policy_action   # one game's built-in policy (serve.session calls it directly)
