"""What a Battle Force player cannot see, sampled anew: the search bot's determinisation.

A player sees the discard pile, the table, the cards on ships, its own hand and reserve, the
face-up ships and its own face-down ones (``rules.write_obs``: ``CARD_PUBLIC_BITS``,
``CARD_PRIVATE_BITS`` and a ship's "unknown to me" feature).  It does not see the other players'
hands and reserves, the order of the action deck and of the ship deck, or which ship another
player has placed face down (SFBF Preparazione, Navi di Riserva).  ``determinise`` replaces all of
that, in place, by one sample consistent with what the player sees, so that a search may play out
the game from the sample without reading the true hidden cards (envs/core/search.py).

The sample depends only on what the player sees and on the seed: two states that differ only in
what it cannot see give the same sample (tests/test_search.py checks it), so a search from them
gives the same answer.

Readings (RULES.md 'The search bot's hidden cards'):
* the hidden action cards (others' hands and reserves, the deck) are dealt anew among the same
  places: each other player keeps its number of cards in hand and in reserve, the deck its size;
* with ships dealt from a shuffled deck (``ship_selection`` "deal", "auto"), the ship deck and
  the other players' face-down ships are dealt anew among those places; with ships chosen in the
  open (points, draft, fleet core), everybody knows which ships a player took, so only which of
  its own ships lies where face down is resampled, and the ship deck's order;
* during set-up the others' lines are secret, but battle_force_v1's observation shows which of
  another player's ships share a line (a ship's place in its line, counted within the hidden
  line): the sample keeps the lines as they are, which reads no more than the observation does
  (RULES.md);
* a card or ship that something refers to (a pending or just-drawn card, a card linked or on a
  ship, a ship attacking, targeted or being damaged) keeps its identity: a player tracks those.

Plain numpy over a batch of state arrays, run once per simulation; no kernel reads this module.
"""
from __future__ import annotations

import numpy as np

from . import rules as R

# a card's and a ship's columns that belong to the place it lies in, not to the card: what a
# resample moves from one hidden card to another
CARD_PLACE = (R.CD_LOC, R.CD_WHO)
SHIP_PLACE = (R.SH_LOC, R.SH_OWNER, R.SH_LINE, R.SH_DOWN)
# the game's columns that name a card or a ship
CARD_REFERENCES = (R.G_PENDING, R.G_DRAWN)
SHIP_REFERENCES = (R.G_ATK_SHIP, R.G_TARGET, R.G_SEL, R.G_HELPER, R.G_DMG_SHIP, R.G_REP_SHIP, R.G_PF_FIRER)
SHIPS_DEALT_UNSEEN = (R.SEL_DEAL,)


def hidden_cards(cd: np.ndarray, p: int) -> np.ndarray:
    """Which action cards player ``p`` cannot see (``cd``: one game's card rows)."""
    loc, who = cd[:, R.CD_LOC], cd[:, R.CD_WHO]
    return (loc == R.CL_DECK) | (((loc == R.CL_HAND) | (loc == R.CL_RES)) & (who != p))


def hidden_ships(sh: np.ndarray, p: int) -> np.ndarray:
    """Which ship cards player ``p`` cannot see: the ship deck and others' face-down ships."""
    loc, owner, down = sh[:, R.SH_LOC], sh[:, R.SH_OWNER], sh[:, R.SH_DOWN]
    return (loc == R.SL_DECK) | ((loc == R.SL_FLEET) & (owner != p) & (down != 0))


def determinise(cfg, state, rows, players, seeds) -> None:
    """In games ``rows`` of ``state`` (a batch of state arrays), replace what ``players[i]`` cannot
    see by a sample drawn from ``seeds[i]`` (see the module's text)."""
    nc, ns = int(cfg.k[R.K_NC]), int(cfg.k[R.K_NS])
    pooled_ships = int(cfg.k[R.K_SELECTION]) in SHIPS_DEALT_UNSEEN
    for b, p, seed in zip(np.asarray(rows).tolist(), np.asarray(players).tolist(), np.asarray(seeds).tolist()):
        rng = np.random.default_rng(int(seed))
        _deal_cards(state, b, p, nc, rng)
        _deal_ships(state, b, p, ns, pooled_ships, rng)


def _deal_cards(state, b: int, p: int, nc: int, rng) -> None:
    cd, g = state.cd[b, :nc], state.g[b]
    refs = set(int(g[col]) for col in CARD_REFERENCES)
    free = (cd[:, R.CD_LINK] < 0) & (cd[:, R.CD_SHIP] < 0) & (cd[:, R.CD_OFF] == 0) & (cd[:, R.CD_MODE] == 0)
    cards = [c for c in np.flatnonzero(hidden_cards(cd, p) & free).tolist() if c not in refs]
    if len(cards) < 2:
        return
    deck_n = int(g[R.G_DECK_N])
    at = {int(c): j for j, c in enumerate(state.deck[b, :deck_n].tolist())}
    # the places, in an order that does not depend on which card lies where
    places = sorted((int(cd[c, R.CD_LOC]), int(cd[c, R.CD_WHO]), at.get(c, -1)) for c in cards)
    dealt = rng.permutation(np.array(cards))
    for (loc, who, j), c in zip(places, dealt.tolist()):
        cd[c, R.CD_LOC], cd[c, R.CD_WHO] = loc, who
        if j >= 0:
            state.deck[b, j] = c


def _deal_ships(state, b: int, p: int, ns: int, pooled: bool, rng) -> None:
    sh, g = state.sh[b, :ns], state.g[b]
    refs = set(int(g[col]) for col in SHIP_REFERENCES)
    refs |= set(state.cd[b, :, R.CD_SHIP].tolist())
    # a ship whose own columns are not blank (cloaked, damaged, ...) has been seen: it stays
    blank = ~np.delete(sh, SHIP_PLACE, axis=1).any(axis=1)
    ships = [i for i in np.flatnonzero(hidden_ships(sh, p) & blank).tolist() if i not in refs]
    sdeck_n = int(g[R.G_SDECK_N])
    at = {int(i): j for j, i in enumerate(state.sdeck[b, :sdeck_n].tolist())}
    groups: dict[int, list[int]] = {}
    for i in ships:   # who may hold each hidden ship: anyone (dealt unseen), else its holder
        key = -1 if pooled or int(sh[i, R.SH_LOC]) == R.SL_DECK else int(sh[i, R.SH_OWNER])
        groups.setdefault(key, []).append(i)
    for group in groups.values():
        if len(group) < 2:
            continue
        places = sorted((*(int(sh[i, col]) for col in SHIP_PLACE), int(state.pos[b, i]), at.get(i, -1))
                        for i in group)
        dealt = rng.permutation(np.array(group))
        for place, i in zip(places, dealt.tolist()):
            sh[i, list(SHIP_PLACE)] = place[:len(SHIP_PLACE)]
            state.pos[b, i] = place[len(SHIP_PLACE)]
            if place[-1] >= 0:
                state.sdeck[b, place[-1]] = i

