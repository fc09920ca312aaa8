"""Star Fleet Battle Force renderer: a text table ("ansi") and a picture ("rgb_array").

``render(core, b, mode, viewer)`` draws game ``b`` of a ``VecGame`` of Battle Force as
player ``viewer`` sees it (default: the player whose decision it is).  Both modes show
the same things:

* a header: game turn, whose turn it is (the active player), whose decision it is and the
  stage, the action deck, the discard pile (count and top card), the ship deck;
* the table: the attack in progress (attacking ship, fighters, Planet-Based Fighters, PF
  Flotilla or Klingon Mutiny), its target, the attack cards with their doublers, the
  defence cards and the card each applies to, Prime Team effects, cancelled effects,
  dice and the damage to place (or the markers to remove while repairing);
* one panel per player, the viewer first, then clockwise: hand and reserve counts,
  victory points from destroyed ships (and the ships destroyed), and the fleet by line
  (screen / main body / reserve; basic game: one fleet), each ship as a card with race,
  class, name, VP, its damage spaces (weapon symbols, WPN, FTR, circles; covered spaces
  crossed out) and its markers (cloak, web, Erratic Maneuvers, Wild Weasel, Disengage);
* the viewer's hand (card names and values) and reserve cards;
* at the end: final scores, ranks and winners.

Hidden information stays hidden: other players' hands and reserve cards are counts,
their face-down reserve ships are "face-down ship", the action deck and the ship deck are
counts, and their formation is not shown before play begins (as in ``rules.write_obs``).
The renderer reads the state; it never changes it.
"""
from __future__ import annotations

import os
import re
import types

import numpy as np

from ..core.render import font as _font
from ..core.render import mix as _mix
from ..core.render import sgr as _sgr
from . import game as G
from . import rules as R

__all__ = ["ANSI_LEGEND", "CARD_TITLES", "render", "render_ansi", "render_rgb", "snapshot", "strip_ansi"]

CARD_TITLES = {
    "phaser1": "Phaser-1", "phaser2": "Phaser-2", "phaser3": "Phaser-3", "photon": "Photon Torpedo",
    "disruptor": "Disruptor", "drone": "Drone", "plasma_r": "Plasma-R", "plasma_s": "Plasma-S",
    "plasma_f": "Plasma-F", "overload": "Overload", "enveloper": "Enveloper", "scatterpack": "Scatterpack",
    "legendary_gunner": "Legendary Gunner", "eccm": "ECCM", "erratic_maneuvers": "Erratic Maneuvers",
    "ecm": "ECM", "reinforce_shields": "Reinforce Shields", "wild_weasel": "Wild Weasel",
    "tractor_beam": "Tractor Beam", "disengage": "Disengage", "damage_control": "Damage Control",
    "legendary_engineer": "Legendary Engineer", "reinforcements": "Reinforcements",
    "planet_based_fighters": "Planet-Based Fighters", "pf_flotilla": "PF Flotilla",
    "klingon_mutiny": "Klingon Mutiny", "organian_ceasefire": "Organian Ceasefire", "prime_team": "Prime Team",
}
# damage spaces of a ship card (order of game.SPACE_KINDS)
SPACE_ABBR = ("Ph1", "Ph2", "Ph3", "Pho", "Dis", "Drn", "PlR", "PlS", "PlF", "WPN", "FTR", "o")
SPACE_WORDS = ("Phaser-1", "Phaser-2", "Phaser-3", "Photon", "Disruptor", "Drone", "Plasma-R", "Plasma-S",
               "Plasma-F", "WPN", "FTR", "circle")
DEFENCE_SYMBOLS = ((R.D_DRONE, "D"), (R.D_PLASMA, "P"), (R.D_FIGHTER, "F"), (R.D_PF, "PF"))
LINE_TITLES = ("screen", "main body", "reserve")
RACE_TITLES = tuple(r.capitalize() for r in G.RACES)
ATTACK_WORDS = {R.AK_SHIP: "ship attack", R.AK_FIGHTERS: "fighter attack", R.AK_PBF: "Planet-Based Fighters",
                R.AK_PF: "PF Flotilla", R.AK_MUTINY: "Klingon Mutiny"}
CANCEL_WORDS = ((R.CX_CLOAK, "cloak"), (R.CX_WEB, "web"), (R.CX_WW, "Wild Weasel"), (R.CX_EM, "Erratic Maneuvers"))
DEFBIT_WORDS = ((R.DB_WW, "Wild Weasel"), (R.DB_EM, "Erratic Maneuvers"), (R.DB_DISENGAGE, "Disengage"))
_MULTIPLIERS = {R.T_OVERLOAD, R.T_ENVELOPER, R.T_SCATTER, R.T_LGUNNER}
_DEFENCE_TYPES = {R.T_ECM, R.T_EM, R.T_RS, R.T_WW, R.T_DISENGAGE, R.T_TRACTOR, R.T_ECCM}


def _stage_name(stage: int) -> str:
    return G.STAGE_NAMES[stage] if 0 <= stage < len(G.STAGE_NAMES) else f"stage {stage}"


# ----------------------------------------------------------------------------
# the state in plain Python, as one player sees it
# ----------------------------------------------------------------------------
def _card_view(cfg, c: int) -> types.SimpleNamespace:
    d = cfg.cards[c]
    typ = d["type"]
    t = G.CARD_TYPES.index(typ)
    value = int(d.get("value", 0))
    title = CARD_TITLES.get(typ, typ)
    show_value = bool(value) and typ not in ("erratic_maneuvers", "reinforce_shields")
    defs = int(cfg.card[c, R.CC_DEF])
    return types.SimpleNamespace(
        id=c, type=typ, t=t, value=value, title=title, show_value=show_value,
        name=f"{title} {value}" if show_value else title,
        defends=[sym for bit, sym in DEFENCE_SYMBOLS if defs & bit],
        weapon=t < R.N_WEAPONS, multiplier=t in _MULTIPLIERS,
        category=("weapon" if t < R.N_WEAPONS else "multiplier" if t in _MULTIPLIERS
                  else "defence" if t in _DEFENCE_TYPES else "special"))


def _card_label(cv) -> str:
    """'[12] Disruptor 4' (the number is the card's action index within the CARD family)."""
    return f"[{cv.id}] {cv.name}"


def _ship_view(cfg, sh, pos, g, i: int, stage: int) -> types.SimpleNamespace:
    info = cfg.ships[i]
    row = [int(x) for x in sh[i]]
    s = types.SimpleNamespace(hidden=False)
    s.i = i
    s.owner, s.line, s.loc = row[R.SH_OWNER], row[R.SH_LINE], row[R.SH_LOC]
    s.race_i = int(cfg.ship[i, R.SC_RACE])
    s.race = RACE_TITLES[s.race_i] if 0 <= s.race_i < len(RACE_TITLES) else "?"
    s.cls = info.get("class", "")
    s.class_name = info.get("class_name", "")
    s.name = info.get("name", f"ship {i}")
    s.full = G.ship_name(cfg, i)
    s.vp = int(cfg.ship[i, R.SC_VP])
    s.spaces = []                       # (kind, printed, covered)
    for k in range(R.N_KIND):
        n = int(cfg.ship[i, R.SC_N + k])
        if n > 0:
            s.spaces.append((k, n, min(max(row[R.SH_COV + k], 0), n)))
    s.n_spaces = sum(n for _, n, _ in s.spaces)
    s.damage = sum(c for _, _, c in s.spaces)
    advanced = bool(cfg.k[R.K_ADVANCED])          # cloak and web are advanced-game rules
    s.can_cloak = advanced and bool(cfg.ship[i, R.SC_CLOAK])
    s.can_web = advanced and bool(cfg.ship[i, R.SC_WEB])
    s.cloak, s.web = bool(row[R.SH_CLOAK]), bool(row[R.SH_WEB])
    s.down = bool(row[R.SH_DOWN])
    s.em = _card_view(cfg, row[R.SH_EM] - 1) if row[R.SH_EM] > 0 else None
    s.ww = _card_view(cfg, row[R.SH_WW] - 1) if row[R.SH_WW] > 0 else None
    s.dis = _card_view(cfg, row[R.SH_DIS] - 1) if row[R.SH_DIS] > 0 else None
    s.shots = row[R.SH_SHOTS]
    s.pos = int(pos[i])
    s.markers = []
    if s.cloak:
        s.markers.append("CLOAKED")
    if s.web:
        s.markers.append("WEB")
    if s.em is not None:
        s.markers.append("ERRATIC MANEUVERS" + (f" {s.em.value}" if s.em.value else ""))
    if s.ww is not None:
        s.markers.append("WILD WEASEL")
    if s.dis is not None:
        s.markers.append("DISENGAGED")
    # what the ship is doing in the current decision
    kind = int(g[R.G_ATK_KIND])
    s.roles = []
    if kind in (R.AK_SHIP, R.AK_FIGHTERS) and int(g[R.G_ATK_SHIP]) == i and stage != R.ST_CARRIER:
        s.roles.append("ATTACKING" if kind == R.AK_SHIP else "FIGHTERS FROM HERE")
    if int(g[R.G_TARGET]) == i:
        s.roles.append("TARGET")
    if int(g[R.G_HELPER]) == i and kind != R.AK_NONE:
        s.roles.append("FIRES IN DEFENCE")
    if s.shots > 0 and kind in (R.AK_FIGHTERS, R.AK_PBF, R.AK_PF):
        s.roles.append(f"FIRED {s.shots}")
    if stage == R.ST_PLACE and int(g[R.G_DMG_SHIP]) == i:
        s.roles.append(f"PLACE {int(g[R.G_DMG_LEFT])} DAMAGE")
    if stage == R.ST_UNMARK and int(g[R.G_REP_SHIP]) == i:
        s.roles.append(f"REMOVE {int(g[R.G_REP_LEFT])} MARKER(S)")
    if stage in (R.ST_FORM_DEST, R.ST_LINE_SETUP) and int(g[R.G_SEL]) == i:
        s.roles.append("CHOOSE ITS LINE")
    return s


def _hidden_ship(sh, pos, i: int) -> types.SimpleNamespace:
    """A face-down reserve ship of another player: only that it is there."""
    return types.SimpleNamespace(hidden=True, i=-1, owner=int(sh[i, R.SH_OWNER]), line=int(sh[i, R.SH_LINE]),
                                 pos=int(pos[i]), roles=[], markers=[])


def snapshot(core, b: int, viewer=None) -> types.SimpleNamespace:
    """Everything the renderers draw, read once (as copies) from game ``b`` of ``core`` and
    filtered to what player ``viewer`` may see (None: the player whose decision it is)."""
    cfg, st = core.cfg, core.state
    g = np.array(st.g[b], copy=True)
    cd = np.array(st.cd[b], copy=True)
    sh = np.array(st.sh[b], copy=True)
    pos = np.array(st.pos[b], copy=True)
    pl = np.array(st.pl[b], copy=True)
    disc = np.array(st.disc[b], copy=True)
    k = cfg.k
    P, NC, NS = int(k[R.K_P]), int(k[R.K_NC]), int(k[R.K_NS])
    v = types.SimpleNamespace()
    v.P = P
    v.stage = int(g[R.G_STAGE])
    v.stage_name = _stage_name(v.stage)
    v.over = bool(g[R.G_DONE]) or v.stage == R.ST_OVER
    v.truncated = bool(g[R.G_TRUNC])
    v.decider = int(g[R.G_DECIDER])
    v.active = int(g[R.G_ACTIVE])
    try:
        viewer = int(viewer)
    except (TypeError, ValueError):
        viewer = -1
    v.viewer = viewer if 0 <= viewer < P else v.decider
    me = v.viewer
    v.setup = v.stage < R.ST_DRAW and not v.over
    v.advanced = bool(k[R.K_ADVANCED])
    v.formation = v.advanced and bool(k[R.K_FORMATION])
    v.allies = bool(k[R.K_ALLIES])
    v.hand_limit = int(k[R.K_HAND])
    v.round, v.turn = int(g[R.G_ROUND]), int(g[R.G_TURN])
    v.deck_n, v.disc_n, v.sdeck_n = int(g[R.G_DECK_N]), int(g[R.G_DISC_N]), int(g[R.G_SDECK_N])
    v.shuffles = int(g[R.G_SHUFFLES])
    v.duel = bool(g[R.G_DUEL])
    v.top_discard = _card_view(cfg, int(disc[v.disc_n - 1])) if v.disc_n > 0 else None
    v.selection = int(k[R.K_SELECTION])
    v.budget = int(k[R.K_BUDGET])

    # -- ships ---------------------------------------------------------------------------
    fleets = {p: [] for p in range(P)}
    destroyed = {p: [] for p in range(P)}
    v.pool = []
    for i in range(NS):
        loc, owner = int(sh[i, R.SH_LOC]), int(sh[i, R.SH_OWNER])
        if loc == R.SL_FLEET and 0 <= owner < P:
            if owner != me and sh[i, R.SH_DOWN]:
                fleets[owner].append(_hidden_ship(sh, pos, i))
            else:
                s = _ship_view(cfg, sh, pos, g, i, v.stage)
                # a ship may hold two Erratic Maneuvers (SFBF 4.4 B): the marker says how many
                n_em = int(((cd[:, R.CD_LOC] == R.CL_SHIP) & (cd[:, R.CD_WHO] == i)
                            & (cfg.card[:, R.CC_TYPE] == R.T_EM)).sum())
                if n_em > 1:
                    s.markers = [m + f" x{n_em}" if m.startswith("ERRATIC MANEUVERS") else m for m in s.markers]
                if v.setup and owner != me:
                    s.line = -2                # the formation is secret until play begins
                fleets[owner].append(s)
        elif loc == R.SL_VP and 0 <= owner < P:
            destroyed[owner].append(_ship_view(cfg, sh, pos, g, i, v.stage))
        elif loc == R.SL_POOL:
            v.pool.append(_ship_view(cfg, sh, pos, g, i, v.stage))
    v.ships = {}
    for p in range(P):
        for s in fleets[p]:
            if not s.hidden:
                v.ships[s.i] = s
    for lst in destroyed.values():
        for s in lst:
            v.ships[s.i] = s

    # -- cards ----------------------------------------------------------------------------
    def visible(c):
        loc, who = int(cd[c, R.CD_LOC]), int(cd[c, R.CD_WHO])
        if loc in (R.CL_HAND, R.CL_RES):
            return who == me
        return loc != R.CL_DECK

    v.cards = {c: _card_view(cfg, c) for c in range(NC) if visible(c)}

    def ship_label(i):
        s = v.ships.get(int(i))
        return f"{s.cls} {s.name}".strip() if s is not None else "a ship"

    v.ship_label = ship_label
    # -- players, from the viewer clockwise ------------------------------------------------
    v.players = []
    for r in range(P):
        p = (me + r) % P
        pv = types.SimpleNamespace(p=p, label=f"P{p}", me=p == me)
        pv.hand_n, pv.res_n = int(pl[p, R.PL_HAND]), int(pl[p, R.PL_RES])
        pv.score, pv.kills = int(pl[p, R.PL_SCORE]), int(pl[p, R.PL_KILLS])
        pv.final, pv.win, pv.rank = int(pl[p, R.PL_FINAL]), bool(pl[p, R.PL_WIN]), int(pl[p, R.PL_RANK])
        pv.team, pv.out, pv.tie = int(pl[p, R.PL_TEAM]), bool(pl[p, R.PL_OUT]), int(pl[p, R.PL_TIE])
        rc = int(pl[p, R.PL_RACE])
        pv.race = RACE_TITLES[rc] if 0 <= rc < len(RACE_TITLES) else ""
        pv.is_active = p == v.active and not v.setup and not v.over
        pv.decides = p == v.decider and not v.over
        ships = sorted(fleets[p], key=lambda s: s.pos)
        pv.fleet = ships
        pv.fleet_vp = sum(s.vp for s in ships if not s.hidden)
        pv.n_hidden = sum(1 for s in ships if s.hidden)
        pv.destroyed = destroyed[p]
        groups = []
        if v.formation:
            lines = [(-1, "not yet placed")] if any(s.line == -1 for s in ships) else []
            if any(s.line == -2 for s in ships):
                lines.append((-2, "fleet (formation secret until play begins)"))
            lines += [(ln, LINE_TITLES[ln]) for ln in range(R.LINES)]
            for ln, title in lines:
                groups.append((title, [s for s in ships if s.line == ln]))
        else:
            groups.append(("fleet", ships))
        pv.groups = groups
        if p == me:
            mine = sorted((c for c in v.cards if int(cd[c, R.CD_WHO]) == p), key=lambda c: c)
            pv.hand = [v.cards[c] for c in mine if int(cd[c, R.CD_LOC]) == R.CL_HAND]
            pv.reserve = [v.cards[c] for c in mine if int(cd[c, R.CD_LOC]) == R.CL_RES]
        else:
            pv.hand, pv.reserve = None, None
        v.players.append(pv)
    v.by_player = {pv.p: pv for pv in v.players}
    v.race_of = {pv.p: pv.race for pv in v.players}

    # -- the table ---------------------------------------------------------------------------
    t = types.SimpleNamespace()
    t.kind = int(g[R.G_ATK_KIND])
    t.kind_word = ATTACK_WORDS.get(t.kind, "")
    t.attacker = int(g[R.G_ATK_SHIP]) if t.kind in (R.AK_SHIP, R.AK_FIGHTERS) and v.stage != R.ST_CARRIER else -1
    t.target = int(g[R.G_TARGET])
    t.defender = int(g[R.G_DEFENDER])
    t.squadrons = int(g[R.G_SQUADRONS])
    t.def_fire = int(g[R.G_DEF_FIRE])
    t.roll, t.die1, t.die2 = int(g[R.G_ROLL]), int(g[R.G_DIE1]), int(g[R.G_DIE2])
    t.pt_add, t.pt_sub = int(g[R.G_PT_ADD]), int(g[R.G_PT_SUB])
    t.cancels = [w for bit, w in CANCEL_WORDS if int(g[R.G_CANCELS]) & bit]
    t.defences_used = [w for bit, w in DEFBIT_WORDS if int(g[R.G_DEF_BITS]) & bit]
    t.ftr_lost = int(g[R.G_FTR_LOST])
    t.dmg_left = int(g[R.G_DMG_LEFT]) if v.stage == R.ST_PLACE else 0
    t.dmg_ship = int(g[R.G_DMG_SHIP]) if v.stage == R.ST_PLACE else -1
    t.rep_left = int(g[R.G_REP_LEFT]) if v.stage == R.ST_UNMARK else 0
    t.rep_ship = int(g[R.G_REP_SHIP]) if v.stage == R.ST_UNMARK else -1
    t.passes = int(g[R.G_PASSES])
    table = [c for c in range(NC) if int(cd[c, R.CD_LOC]) in (R.CL_ATK, R.CL_DEF)]
    table.sort(key=lambda c: int(cd[c, R.CD_SEQ]))

    def entry(c):
        cv = v.cards[c]
        e = types.SimpleNamespace(card=cv, who=int(cd[c, R.CD_WHO]), side="attack" if int(cd[c, R.CD_LOC]) == R.CL_ATK
                                  else "defence", link=int(cd[c, R.CD_LINK]), ship=int(cd[c, R.CD_SHIP]),
                                  off=int(cd[c, R.CD_OFF]), mode=int(cd[c, R.CD_MODE]), doubler=None,
                                  against=[], attached=False)
        return e

    entries = {c: entry(c) for c in table}
    for c, e in entries.items():
        # a combat card doubling a weapon card of the same side is drawn with that weapon card
        if e.card.multiplier and e.link in entries and entries[e.link].side == e.side:
            entries[e.link].doubler = e
            e.attached = True
    for c, e in entries.items():
        if e.side == "defence" and e.link in entries and entries[e.link].side == "attack":
            entries[e.link].against.append(e)
    t.attack_cards = [entries[c] for c in table if entries[c].side == "attack" and not entries[c].attached]
    t.defence_cards = [entries[c] for c in table if entries[c].side == "defence" and not entries[c].attached]
    t.entries = entries
    t.on_ship = []                                  # Erratic Maneuvers, Wild Weasel, Disengage on ships
    for c in range(NC):
        if int(cd[c, R.CD_LOC]) == R.CL_SHIP:
            t.on_ship.append((v.cards[c], int(cd[c, R.CD_WHO])))
    t.active = t.kind != R.AK_NONE or bool(table)
    pend = int(g[R.G_PENDING])
    t.pending = None
    if pend >= 0 and v.stage in (R.ST_LINK, R.ST_SHIP_FOR, R.ST_PT_MODE, R.ST_DISC_DEST, R.ST_REPAIR_SHIP):
        t.pending = v.cards.get(pend)               # a card still in a hand only for its holder
    drawn = int(g[R.G_DRAWN])
    t.drawn = v.cards.get(drawn) if v.stage == R.ST_KEEP and drawn >= 0 and v.decider == me else None
    t.pf_left = None
    if t.kind == R.AK_PF:
        f = t.def_fire
        t.pf_left = max(0, 12 - f) if int(k[R.K_PF_MODE]) == 0 else max(0, 6 - f // 2)
    t.predicted = _predicted_damage(core, b, t, v)
    v.table = t

    # -- the end -----------------------------------------------------------------------------
    v.result = None
    if v.over:
        v.result = G.final_info(core, b)
    return v


def _predicted_damage(core, b, t, v):
    """The damage the target would take if the attack were resolved now (the rules' own
    computation), while an attack with a target is on the table; None otherwise."""
    if v.over or t.target < 0 or t.kind == R.AK_MUTINY or v.stage not in (R.ST_ATK_CARDS, R.ST_DEFENCE,
                                                                             R.ST_REACT, R.ST_LINK, R.ST_PT_MODE):
        return None
    if t.kind in (R.AK_FIGHTERS, R.AK_PBF) and t.roll == 0:
        return None
    from numba.core.errors import NumbaError
    try:
        return int(R.attack_damage(core.state.view, core.cfg.struct, int(b)))
    except (NumbaError, TypeError, ValueError, AttributeError, IndexError):  # display only: leave it out
        return None


def _player_word(v, p: int) -> str:
    if not 0 <= p < v.P:
        return "-"
    return f"P{p}" + (" (you)" if p == v.viewer else "")


def _status_text(v) -> str:
    """The decision at hand, in one sentence."""
    if v.over:
        if v.truncated:
            return "Game over (stopped: no legal action)."
        r = v.result or {}
        win = [p for p, w in enumerate(r.get("won", [])) if w]
        if not win:
            return "Game over."
        names = ", ".join(f"P{p}" for p in win)
        return f"Game over: {names} win{'s' if len(win) == 1 else ''}."
    who = _player_word(v, v.decider)
    st, t = v.stage, v.table
    if st == R.ST_PICK:
        pv = v.by_player[v.decider]
        extra = f" (fleet {pv.fleet_vp} of {v.budget} VP)" if v.selection == R.SEL_POINTS else ""
        return f"{who}: pick a ship from the pool or stop{extra}."
    if st == R.ST_DRAW:
        pv = v.by_player[v.decider]
        return f"{who}: draw (hand {pv.hand_n} of {v.hand_limit})."
    if st == R.ST_KEEP:
        card = f" {_card_label(t.drawn)}" if t.drawn is not None else " the drawn card"
        return f"{who}: keep{card} in hand or put it into the reserve."
    if st == R.ST_PLACE:
        return f"{who}: place {t.dmg_left} damage marker(s) on {v.ship_label(t.dmg_ship)}."
    if st == R.ST_UNMARK:
        return f"{who}: remove {t.rep_left} damage marker(s) from {v.ship_label(t.rep_ship)}."
    if st == R.ST_TARGET:
        return f"{who}: choose the target of the {t.kind_word or 'attack'}."
    if st == R.ST_DEFENCE:
        return f"{who}: play a defence card or pass (the attacker may answer)."
    if st == R.ST_REACT:
        return f"{who}: answer the defence or pass."
    if st == R.ST_LINK and t.pending is not None:
        return f"{who}: choose the card that {_card_label(t.pending)} applies to."
    if st == R.ST_SHIP_FOR and t.pending is not None:
        return f"{who}: choose the ship that fires {_card_label(t.pending)}."
    if st == R.ST_DISC_DEST and t.pending is not None:
        return f"{who}: {_card_label(t.pending)}: discard it or put it into a reserve."
    if st == R.ST_FORM_DEST:
        return f"{who}: choose the new line of the selected ship."
    if st == R.ST_LINE_SETUP:
        return f"{who}: choose the line of the next ship (screen, main body, reserve)."
    return f"{who}: {v.stage_name}."


def _space_text(s) -> str:
    """'Ph1 ●● Pho ●✕ o ○○✕': one mark per damage space, ✕ where a marker covers it."""
    parts = []
    for kk, n, cov in s.spaces:
        free = "\u25cb" if kk == R.K_CIRCLE else "\u25cf"
        parts.append(f"{SPACE_ABBR[kk]} " + free * (n - cov) + "\u2715" * cov)
    return "  ".join(parts)


def _entry_text(v, e) -> str:
    cv = e.card
    txt = _card_label(cv)
    bits = [f"P{e.who}"] if 0 <= e.who < v.P else []
    if e.ship >= 0 and cv.weapon:
        bits.append(f"fired by {v.ship_label(e.ship)}")
    if cv.t == R.T_PRIME and e.mode:
        bits.append("+1" if e.mode == R.PT_MODE_ADD else "cancels an effect")
    if e.off:
        bits.append("cancelled")
    txt += f" ({', '.join(bits)})" if bits else ""
    if e.doubler is not None:
        txt += f" \u00d72 {_card_label(e.doubler.card)}"
    if e.link >= 0 and not e.attached and e.link in v.table.entries:
        txt += f" \u2192 on {_card_label(v.table.entries[e.link].card)}"
    elif e.link >= 0 and not e.attached and e.link in v.cards:
        txt += f" \u2192 on {_card_label(v.cards[e.link])}"
    return txt


def _table_lines(v) -> list[str]:
    t = v.table
    out = []
    if t.kind != R.AK_NONE:
        if t.kind == R.AK_SHIP:
            src = f"P{v.active} {v.ship_label(t.attacker)}" if t.attacker >= 0 else f"P{v.active}"
        elif t.kind == R.AK_FIGHTERS:
            src = (f"P{v.active}: {t.squadrons} fighter squadron(s) from {v.ship_label(t.attacker)}"
                   if t.attacker >= 0 else f"P{v.active}: fighters (choosing a carrier)")
        elif t.kind == R.AK_PF:
            src = f"P{v.active}: PF Flotilla ({t.pf_left} left)"
        else:
            src = f"P{v.active}: {t.kind_word}"
        tgt = (f"P{t.defender} {v.ship_label(t.target)}" if t.target >= 0 else "target not chosen yet")
        out.append(f"Attack ({t.kind_word}): {src} \u2192 {tgt}")
    if t.attack_cards:
        out.append("  attack cards:")
        out += [f"    {_entry_text(v, e)}" for e in t.attack_cards]
    if t.defence_cards:
        out.append("  defence cards:")
        out += [f"    {_entry_text(v, e)}" for e in t.defence_cards]
    notes = []
    if t.kind in (R.AK_FIGHTERS, R.AK_PBF) and (t.def_fire or t.roll):
        notes.append(f"fired at the fighters: {t.def_fire}")
    if t.kind == R.AK_PF and t.def_fire:
        notes.append(f"fired at the PF Flotilla: {t.def_fire}")
    if t.pt_add:
        notes.append(f"Prime Team +{t.pt_add}")
    if t.pt_sub:
        notes.append(f"Prime Team -{t.pt_sub}")
    if t.cancels:
        notes.append("cancelled: " + ", ".join(t.cancels))
    if t.defences_used:
        notes.append("defences used: " + ", ".join(t.defences_used))
    if t.ftr_lost and t.kind == R.AK_FIGHTERS:
        notes.append(f"squadrons lost: {t.ftr_lost}")
    if notes:
        out.append("  " + "; ".join(notes))
    if t.kind != R.AK_NONE and t.roll:
        dice = [d for d in (t.die1, t.die2) if d > 0]
        out.append(f"  dice: {' + '.join(str(d) for d in dice) or '-'}  roll total {t.roll}")
    if t.predicted is not None:
        out.append(f"  damage if the attack ended now: {t.predicted}")
    if t.dmg_left:
        owner = v.by_player.get(v.decider)
        out.append(f"  damage to place: {t.dmg_left} on {v.ship_label(t.dmg_ship)}"
                   + (f" (P{owner.p} places)" if owner else ""))
    if t.rep_left:
        out.append(f"  repair: {t.rep_left} marker(s) to remove from {v.ship_label(t.rep_ship)}")
    if t.pending is not None:
        out.append(f"  card being played: {_card_label(t.pending)}")
    if not out:
        out.append("(no attack on the table)")
    return out


def _wrap(prefix: str, items: list[str], width: int = 110, sep: str = ", ") -> list[str]:
    """``prefix`` and the items, wrapped between items (an item is never split)."""
    if not items:
        return [prefix + "-"]
    pad = " " * len(prefix)
    lines, cur = [], prefix
    for j, item in enumerate(items):
        piece = item + (sep.rstrip() if j < len(items) - 1 else "")
        if cur.strip() and cur not in (prefix, pad) and len(cur) + 1 + len(piece) > width:
            lines.append(cur.rstrip())
            cur = pad
        cur += ("" if cur in (prefix, pad) else " ") + piece
    lines.append(cur.rstrip())
    return lines


# ----------------------------------------------------------------------------
# ANSI
# ----------------------------------------------------------------------------
ANSI_COLOUR = os.environ.get("NO_COLOR") is None   # set False (or NO_COLOR=1) for plain text
_PLAYER_SGR = ("1;34", "1;31", "1;32", "1;33", "1;35", "1;36")
_RACE_SGR = ("34", "31", "32", "33", "38;5;208", "37", "35")
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")

ANSI_LEGEND = (
    "Legend: ship spaces Ph1/Ph2/Ph3 Phaser-1/2/3, Pho Photon, Dis Disruptor, Drn Drone, PlR/PlS/PlF Plasma-R/S/F,",
    "  WPN Orion weapon, FTR fighter squadron, o circle;  \u25cf weapon space free, \u25cb circle free,",
    "  \u2715 space covered by a damage marker.",
    "  [n] is a card's number (the CARD action n); cards show defence symbols D drone, P plasma, F fighter, PF.",
)


def strip_ansi(text: str) -> str:
    """The text without ANSI colour codes."""
    return _ANSI_RE.sub("", text)

def _ansi_ship(v, s, colour: bool) -> str:
    if s.hidden:
        return "    face-down ship"
    race = _sgr(f"{s.race:<10}", _RACE_SGR[s.race_i % len(_RACE_SGR)], colour)
    head = f"    {race} {s.cls:<5}{s.name:<14} {s.vp:>2} VP  "
    dmg = f"  damage {s.damage}/{s.n_spaces}"
    spaces = _space_text(s)
    if colour:
        spaces = spaces.replace("\u2715", _sgr("\u2715", "1;31", True))
    extra = []
    if s.can_cloak and not s.cloak:
        extra.append("cloak off")
    if s.can_web and not s.web:
        extra.append("web off")
    marks = "".join(f" [{m}]" for m in s.markers) + "".join(f" ({x})" for x in extra)
    roles = "".join(f" <{r}>" for r in s.roles)
    if s.down:
        marks += " (face down)"
    return head + spaces + dmg + marks + (_sgr(roles, "1;33", colour) if roles else "")


def _ansi_card_list(cards) -> list[str]:
    out = []
    for cv in cards:
        d = f" def {' '.join(cv.defends)}" if cv.defends else ""
        out.append(_card_label(cv) + d)
    return out


def render_ansi(v, colour: bool | None = None) -> str:
    colour = ANSI_COLOUR if colour is None else bool(colour)
    t = v.table
    out = []
    top = f"top {_card_label(v.top_discard)}" if v.top_discard is not None else "empty"
    turn = "set-up" if v.setup else f"game turn {v.round}"
    out.append(_sgr("STAR FLEET BATTLE FORCE", "1", colour) + f"  {turn}  {v.P} players"
               + ("  (advanced game)" if v.advanced else "  (basic game)") + ("  tie-break duel" if v.duel else ""))
    out.append(f"action deck {v.deck_n}  discard pile {v.disc_n} ({top})  ship deck {v.sdeck_n}"
               + (f"  reshuffles {v.shuffles}" if v.shuffles else ""))
    who = _sgr(_player_word(v, v.decider), _PLAYER_SGR[v.decider % 6], colour) if not v.over else "-"
    act = "" if v.setup or v.over else f"  active player: P{v.active}"
    out.append(f"stage: {_sgr(v.stage_name, '1', colour)}  to decide: {who}{act}  viewer: P{v.viewer}")
    out.append("  " + _sgr(_status_text(v), "1;33" if v.over else "", colour))
    if v.over and v.result:
        r = v.result
        out.append("  final scores: " + "  ".join(f"P{p} {x}" for p, x in enumerate(r["scores"]))
                   + "   ranks: " + "  ".join(f"P{p} #{x + 1}" for p, x in enumerate(r["ranks"]))
                   + "   winners: " + (", ".join(f"P{p}" for p, w in enumerate(r["won"]) if w) or "-"))
    # the table
    out.append("")
    out.append(_sgr("== table ==", "1", colour))
    out += ["  " + ln for ln in _table_lines(v)]
    if t.drawn is not None:
        out.append(f"  just drawn: {_card_label(t.drawn)}")
    if v.pool:
        out.append("")
        out.append(_sgr("== ship pool ==", "1", colour))
        for s in sorted(v.pool, key=lambda s: s.i):
            out.append(f"    [{s.i}] " + _ansi_ship(v, s, colour).strip())
    # the players
    for pv in v.players:
        out.append("")
        tags = []
        if pv.me:
            tags.append("you")
        if pv.race:
            tags.append(pv.race)
        if v.allies:
            tags.append(f"team {pv.team}")
        if pv.is_active:
            tags.append("active")
        if pv.decides:
            tags.append("to decide: " + v.stage_name)
        if pv.out:
            tags.append("out")
        if v.over:
            tags.append(f"final {pv.final}, rank {pv.rank + 1}" + (", WINNER" if pv.win else ""))
        label = _sgr(f"== {pv.label} ==", _PLAYER_SGR[pv.p % 6], colour)
        tag_text = f" [{'; '.join(tags)}]" if tags else ""
        out.append(f"{label}{tag_text}  hand {pv.hand_n}  " + (f"reserve cards {pv.res_n}  " if v.advanced else "")
                   + f"victory points {pv.score} ({pv.kills} ship(s) destroyed)"
                   + (f"  tie-break draw {pv.tie}" if pv.tie and v.over else ""))
        for title, ships in pv.groups:
            if not ships and title in ("not yet placed",):
                continue
            out.append(f"  {title}: " + ("-" if not ships else f"{len(ships)} ship(s)"))
            for s in ships:
                out.append(_ansi_ship(v, s, colour))
        out += _wrap("  ships destroyed: ", [f"{s.full} ({s.vp})" for s in pv.destroyed])
        if pv.me:
            out += _wrap("  your hand: ", _ansi_card_list(pv.hand), sep="; ")
            if v.advanced:
                out += _wrap("  your reserve cards: ", _ansi_card_list(pv.reserve), sep="; ")
    out.append("")
    out.extend(ANSI_LEGEND)
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------
# RGB (Pillow)
# ----------------------------------------------------------------------------
SS = 2                                             # supersampling factor (anti-aliasing)
BG = (10, 13, 24)
PANEL = (18, 23, 40)
EDGE = (52, 62, 96)
TEXT = (228, 232, 242)
TEXT_DIM = (146, 154, 176)
PLAYER_RGB = ((72, 146, 255), (238, 72, 62), (80, 200, 110), (240, 200, 60), (200, 110, 235), (60, 205, 215))
RACE_RGB = ((60, 100, 185), (150, 38, 38), (36, 120, 66), (112, 122, 40), (196, 112, 36), (84, 84, 98),
            (132, 84, 168))
HIT_RGB = (235, 70, 60)
SEL_RGB = (255, 226, 100)
TARGET_RGB = (255, 90, 70)
CATEGORY_RGB = {"weapon": (176, 58, 52), "multiplier": (200, 120, 40), "defence": (50, 110, 190),
                "special": (120, 80, 170)}
SPACE_RGB = (222, 226, 236)
COVER_RGB = (60, 62, 74)


def _i(x) -> int:
    """A line width in whole pixels (at least one)."""
    return max(1, round(x))

class _Painter:
    """Drawing primitives in supersampled pixels."""

    def __init__(self, draw):
        self.d = draw

    def text(self, xy, s, size, fill=TEXT, bold=False, anchor="la"):
        self.d.text(xy, s, font=_font(size, bold), fill=fill, anchor=anchor)

    def width(self, s, size, bold=False):
        return _font(size, bold).getlength(s)

    def fit(self, s, size, maxw, bold=False):
        """``s`` shortened with an ellipsis to fit ``maxw``."""
        if self.width(s, size, bold) <= maxw:
            return s
        while s and self.width(s + "\u2026", size, bold) > maxw:
            s = s[:-1]
        return s + "\u2026"

    def chip(self, x, y, label, colour, size):
        """A rounded label with its left edge at x, centred on y; returns its width."""
        w = self.width(label, size, True) + 8 * SS
        h = size * 0.75 + 3 * SS
        self.d.rounded_rectangle((x, y - h, x + w, y + h), radius=3 * SS, fill=_mix(PANEL, colour, 0.3),
                                 outline=colour, width=SS)
        self.text((x + w / 2, y), label, size, fill=_mix(colour, (255, 255, 255), 0.5), bold=True, anchor="mm")
        return w

    def cross(self, box, colour, width):
        x0, y0, x1, y1 = box
        self.d.line([(x0, y0), (x1, y1)], fill=colour, width=width)
        self.d.line([(x0, y1), (x1, y0)], fill=colour, width=width)


# -- a ship card ------------------------------------------------------------------------
CARD_W, CARD_H = 112, 134          # final pixels
_BOX, _BOX_GAP, _BOX_COLS = 18, 2, 5
_MARKER_SHORT = {"CLOAKED": "CLOAK", "WEB": "WEB", "WILD WEASEL": "WW", "DISENGAGED": "DIS"}


def _draw_ship_card(pt, s, x, y, owner_rgb, k=1.0):
    """Ship card ``s`` with its top-left corner at (x, y), ``k`` times the full size."""
    u = SS * k
    w, h = CARD_W * u, CARD_H * u
    d = pt.d
    if s.hidden:
        d.rounded_rectangle((x, y, x + w, y + h), radius=7 * u, fill=(28, 32, 54), outline=owner_rgb, width=_i(u))
        for j in range(-int(h), int(w), _i(10 * u)):   # a card back: diagonal hatching
            d.line([(x + max(j, 0), y + max(-j, 0)), (x + min(j + h, w), y + min(h, w - j))],
                   fill=(40, 46, 74), width=_i(u))
        d.rounded_rectangle((x + 8 * u, y + h / 2 - 22 * u, x + w - 8 * u, y + h / 2 + 22 * u), radius=5 * u,
                            fill=(22, 26, 44), outline=EDGE, width=_i(u))
        pt.text((x + w / 2, y + h / 2 - 7 * u), "face-down", 11 * u, fill=TEXT_DIM, bold=True, anchor="mm")
        pt.text((x + w / 2, y + h / 2 + 8 * u), "ship", 11 * u, fill=TEXT_DIM, bold=True, anchor="mm")
        return
    race_rgb = RACE_RGB[s.race_i % len(RACE_RGB)]
    role = s.roles[0] if s.roles else ""
    outline = TARGET_RGB if "TARGET" in s.roles else SEL_RGB if s.roles else _mix(owner_rgb, PANEL, 0.25)
    ow = 3 if s.roles else 1
    d.rounded_rectangle((x, y, x + w, y + h), radius=7 * u, fill=(236, 232, 220), outline=outline, width=_i(ow * u))
    # header band: class and VP
    d.rounded_rectangle((x + ow * u, y + ow * u, x + w - ow * u, y + 22 * u), radius=5 * u, fill=race_rgb)
    pt.text((x + 7 * u, y + 12 * u), s.cls, 13 * u, fill=(255, 255, 255), bold=True, anchor="lm")
    cx, cy, r = x + w - 14 * u, y + 12 * u, 9 * u
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(250, 220, 90), outline=(60, 40, 0), width=_i(u))
    pt.text((cx, cy + 0.5 * u), str(s.vp), 10 * u, fill=(40, 30, 0), bold=True, anchor="mm")
    pt.text((x + w / 2, y + 32 * u), pt.fit(s.name, 12 * u, w - 10 * u, True), 12 * u, fill=(20, 22, 30),
            bold=True, anchor="mm")
    pt.text((x + w / 2, y + 45 * u), pt.fit(f"{s.race} {s.class_name}", 9 * u, w - 8 * u), 9 * u,
            fill=(80, 84, 96), anchor="mm")
    # damage spaces
    bs, gap = _BOX * u, _BOX_GAP * u
    gx0 = x + (w - (_BOX_COLS * bs + (_BOX_COLS - 1) * gap)) / 2
    gy0 = y + 53 * u
    j = 0
    for kk, n, cov in s.spaces:
        for m in range(n):
            col, rw = j % _BOX_COLS, j // _BOX_COLS
            bx, by = gx0 + col * (bs + gap), gy0 + rw * (bs + gap)
            covered = m >= n - cov
            box = (bx, by, bx + bs, by + bs)
            if kk == R.K_CIRCLE:
                d.ellipse(box, fill=COVER_RGB if covered else (250, 250, 250), outline=(70, 70, 80), width=_i(u))
            else:
                fill = COVER_RGB if covered else (SPACE_RGB if kk < R.N_WEAPONS else (214, 228, 214))
                d.rectangle(box, fill=fill, outline=(70, 70, 80), width=_i(u))
                pt.text((bx + bs / 2, by + bs / 2), SPACE_ABBR[kk], 7 * u,
                        fill=(120, 120, 130) if covered else (20, 22, 30), bold=True, anchor="mm")
            if covered:
                pt.cross((bx + 3 * u, by + 3 * u, bx + bs - 3 * u, by + bs - 3 * u), HIT_RGB, _i(2 * u))
            j += 1
    # markers along the bottom
    mx, my = x + 5 * u, y + h - 11 * u
    marks = [(_MARKER_SHORT.get(m, "EM"), (170, 120, 255) if m in ("CLOAKED", "WEB") else (255, 150, 60))
             for m in s.markers]
    if s.down:
        marks.append(("FACE DOWN", TEXT_DIM))
    for label, colour in marks:
        wch = pt.width(label, 8 * u, True) + 6 * u
        if mx + wch > x + w - 4 * u:
            break
        d.rounded_rectangle((mx, my - 7 * u, mx + wch, my + 7 * u), radius=3 * u, fill=colour)
        pt.text((mx + wch / 2, my), label, 8 * u, fill=(20, 20, 30), bold=True, anchor="mm")
        mx += wch + 3 * u
    if not marks and (s.can_cloak or s.can_web):
        pt.text((x + 6 * u, my), "cloak off" if s.can_cloak else "web off", 8 * u, fill=(110, 110, 120),
                anchor="lm")
    if role:
        lab = pt.fit(role, 8 * u, w - 10 * u, True)
        lw = pt.width(lab, 8 * u, True) + 8 * u
        d.rounded_rectangle((x + w / 2 - lw / 2, y - 7 * u, x + w / 2 + lw / 2, y + 5 * u), radius=3 * u,
                            fill=outline)
        pt.text((x + w / 2, y - 1 * u), lab, 8 * u, fill=(20, 20, 30), bold=True, anchor="mm")


# -- an action card ----------------------------------------------------------------------
ACT_W, ACT_H = 84, 62


def _draw_action_card(pt, cv, x, y, note="", dim=False):
    u = SS
    w, h = ACT_W * u, ACT_H * u
    d = pt.d
    col = CATEGORY_RGB[cv.category]
    if dim:
        col = _mix(col, PANEL, 0.6)
    d.rounded_rectangle((x, y, x + w, y + h), radius=6 * u, fill=_mix(col, (250, 246, 236), 0.82), outline=col,
                        width=2 * u)
    d.rounded_rectangle((x + 2 * u, y + 2 * u, x + w - 2 * u, y + 14 * u), radius=4 * u, fill=col)
    pt.text((x + 5 * u, y + 8 * u), f"#{cv.id}", 8 * u, fill=(255, 255, 255), bold=True, anchor="lm")
    pt.text((x + w - 5 * u, y + 8 * u), cv.category, 7 * u, fill=(255, 255, 255), anchor="rm")
    lines = _wrap_px(pt, cv.title, 10 * u, w - 10 * u, True)
    for k, ln in enumerate(lines[:2]):
        pt.text((x + 5 * u, y + (22 + 11 * k) * u), pt.fit(ln, 10 * u, w - 10 * u, True), 10 * u,
                fill=(25, 25, 35), bold=True, anchor="lm")
    if cv.show_value:
        pt.text((x + w - 6 * u, y + h - 4 * u), str(cv.value), 18 * u, fill=col, bold=True, anchor="rs")
    if cv.defends:
        pt.text((x + 5 * u, y + h - 8 * u), " ".join(cv.defends), 8 * u, fill=(50, 90, 160), bold=True, anchor="lm")
    if dim:
        pt.cross((x + 6 * u, y + 6 * u, x + w - 6 * u, y + h - 6 * u), HIT_RGB, 3 * u)
    if note:
        pt.text((x + w / 2, y + h + 8 * u), pt.fit(note, 9 * u, w + 14 * u), 9 * u, fill=TEXT_DIM, anchor="mm")


def _wrap_px(pt, text, size, maxw, bold=False):
    """Words of ``text`` in lines no wider than ``maxw`` pixels (a long word is cut)."""
    lines, cur = [], ""
    for word in text.split():
        trial = f"{cur} {word}".strip()
        if cur and pt.width(trial, size, bold) > maxw:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return [pt.fit(ln, size, maxw, bold) for ln in lines]


def _draw_card_back(pt, x, y, label, sub=""):
    u = SS
    w, h = ACT_W * u, ACT_H * u
    d = pt.d
    d.rounded_rectangle((x + 4 * u, y - 3 * u, x + w + 4 * u, y + h - 3 * u), radius=6 * u, fill=(30, 36, 64),
                        outline=EDGE, width=u)
    d.rounded_rectangle((x, y, x + w, y + h), radius=6 * u, fill=(38, 46, 84), outline=(90, 104, 150), width=u)
    d.ellipse((x + w / 2 - 16 * u, y + h / 2 - 16 * u, x + w / 2 + 16 * u, y + h / 2 + 16 * u),
              outline=(90, 104, 150), width=u)
    pt.text((x + w / 2, y + h / 2), label, 15 * u, fill=TEXT, bold=True, anchor="mm")
    if sub:
        pt.text((x + w / 2, y + h + 8 * u), sub, 9 * u, fill=TEXT_DIM, anchor="mm")


def _draw_die(pt, x, y, n, size):
    u = SS
    d = pt.d
    d.rounded_rectangle((x, y, x + size, y + size), radius=size * 0.18, fill=(245, 245, 245),
                        outline=(40, 40, 40), width=u)
    pips = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
            5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}
    r = size * 0.09
    for px, py in pips.get(n, []):
        cx, cy = x + size * (0.25 + 0.25 * px), y + size * (0.25 + 0.25 * py)
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(20, 20, 20))


# -- layout ---------------------------------------------------------------------------------
_GAP = 6          # between cards
_GROUP_GAP = 16   # between lines
_LABEL_H = 22     # line titles above a row
_EMPTY_W = 64     # an empty line's outline
_PANEL_HEAD = 44


def _fleet_layout(pv, x0, x1, y0, k=1.0):
    """(card positions, group titles, bottom y) of a player's fleet, lines left to right."""
    u = SS
    cw = CARD_W * u * k
    row_h = (_LABEL_H + CARD_H * k + 10) * u
    x, y = x0, y0
    cards, titles = [], []
    if not pv.fleet:
        return cards, [("no ships in play", 0, x0, y0, x1)], y0 + 22 * u
    first_in_row = True
    for title, ships in pv.groups:
        if not ships and title in ("not yet placed",):
            continue
        need = min(len(ships), 2) * (cw + _GAP * u) if ships else _EMPTY_W * u + _GAP * u
        if not first_in_row and x + need > x1 + _GAP * u:
            x, y = x0, y + row_h
            first_in_row = True
        tx, ty = x, y
        if not ships:
            # an empty line: an empty outline
            cards.append((None, x, y + _LABEL_H * u))
            x += _EMPTY_W * u + _GROUP_GAP * u
            titles.append((title, 0, tx, ty, x - _GROUP_GAP * u))
            first_in_row = False
            continue
        end = None
        for s in ships:
            if x + cw > x1 + 1:
                end = x if end is None else end
                x, y = x0, y + row_h
            cards.append((s, x, y + _LABEL_H * u))
            x += cw + _GAP * u
        titles.append((title, len(ships), tx, ty, (end if end is not None else x) - _GAP * u))
        x += _GROUP_GAP * u - _GAP * u
        first_in_row = False
    return cards, titles, y + row_h - 4 * u


def _card_scale(pv, width):
    """0.8, or 0.7 when that fits the whole fleet on one row of a panel ``width`` wide."""
    u = SS
    for k in (0.8, 0.7):
        _cards, _titles, bottom = _fleet_layout(pv, 0, width - 20 * u, 0, k)
        if bottom <= (_LABEL_H + CARD_H * k + 6) * u + 1:
            return k
    return 0.8


def _panel_height(pt, pv, width, with_hand, k=1.0):
    u = SS
    _cards, _titles, bottom = _fleet_layout(pv, 0, width - 20 * u, _PANEL_HEAD * u, k)
    h = bottom
    if pv.destroyed:
        h += 18 * u
    if with_hand:
        h += (ACT_H + 34) * u
    return h + 8 * u


def _draw_panel(pt, v, pv, x0, y0, width, height, with_hand, k=1.0):
    u = SS
    d = pt.d
    col = PLAYER_RGB[pv.p % len(PLAYER_RGB)]
    d.rounded_rectangle((x0, y0, x0 + width, y0 + height), radius=8 * u, fill=_mix(PANEL, col, 0.08 if pv.me else 0.04),
                        outline=col if pv.decides else _mix(col, PANEL, 0.5), width=(3 if pv.decides else 1) * u)
    y = y0 + 15 * u
    d.ellipse((x0 + 10 * u, y - 6 * u, x0 + 22 * u, y + 6 * u), fill=col)
    name = pv.label + (" (you)" if pv.me else "")
    pt.text((x0 + 28 * u, y), name, 15 * u, fill=TEXT, bold=True, anchor="lm")
    x = x0 + 28 * u + pt.width(name, 15 * u, True) + 10 * u
    chips = []
    if pv.race:
        chips.append((pv.race.upper(), TEXT_DIM))
    if v.allies:
        chips.append((f"TEAM {pv.team}", TEXT_DIM))
    if pv.is_active:
        chips.append(("ACTIVE", (110, 225, 130)))
    if pv.decides:
        chips.append(("TO DECIDE", SEL_RGB))
    if pv.out:
        chips.append(("OUT", TEXT_DIM))
    if v.over:
        chips.append((f"RANK {pv.rank + 1}", TEXT_DIM))
        if pv.win:
            chips.append(("WINNER", SEL_RGB))
    for label, c in chips:
        if x + pt.width(label, 9 * u, True) + 8 * u > x0 + width - 10 * u:
            break
        x += pt.chip(x, y, label, c, 9 * u) + 5 * u
    stats = (f"hand {pv.hand_n}    " + (f"reserve cards {pv.res_n}    " if v.advanced else "")
             + f"victory points {pv.score}"
             f" ({pv.kills} ship{'s' if pv.kills != 1 else ''} destroyed)")
    if pv.n_hidden:
        stats += f"    face-down ships {pv.n_hidden}"
    if v.over:
        stats += f"    final score {pv.final}"
    pt.text((x0 + 12 * u, y + 17 * u), pt.fit(stats, 11 * u, width - 24 * u), 11 * u, fill=_mix(col, TEXT, 0.4),
            anchor="lm")
    cards, titles, bottom = _fleet_layout(pv, x0 + 10 * u, x0 + width - 10 * u, y0 + _PANEL_HEAD * u, k)
    for title, n, tx, ty, tx1 in titles:
        label = f"{title.upper()}  {n}" if n else title.upper()
        pt.text((tx + 2 * u, ty + 7 * u), pt.fit(label, 10 * u, max(tx1 - tx, CARD_W * k * u)), 10 * u,
                fill=TEXT_DIM, bold=True, anchor="lm")
    for s, cx, cy in cards:
        if s is None:
            box = (cx, cy, cx + _EMPTY_W * u, cy + CARD_H * k * u)
            d.rounded_rectangle(box, radius=7 * u, outline=EDGE, width=u)
            pt.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), "empty", 10 * u, fill=TEXT_DIM, anchor="mm")
        else:
            _draw_ship_card(pt, s, cx, cy, col, k)
    y = bottom
    if pv.destroyed:
        txt = "ships destroyed: " + ", ".join(f"{s.race} {s.cls} {s.name} ({s.vp})" for s in pv.destroyed)
        pt.text((x0 + 12 * u, y + 6 * u), pt.fit(txt, 10 * u, width - 24 * u), 10 * u, fill=TEXT_DIM, anchor="lm")
        y += 18 * u
    if with_hand:
        y += 4 * u
        pt.text((x0 + 12 * u, y + 6 * u), f"YOUR HAND {len(pv.hand)} (limit {v.hand_limit})", 10 * u,
                fill=TEXT_DIM, bold=True, anchor="lm")
        x = x0 + 12 * u
        yy = y + 16 * u
        drawn = v.table.drawn.id if v.table.drawn is not None else -1
        for cv in pv.hand:
            if x + ACT_W * u > x0 + width - 10 * u:
                break
            _draw_action_card(pt, cv, x, yy, note="just drawn" if cv.id == drawn else "")
            x += (ACT_W + 6) * u
        if v.advanced:
            x += 18 * u
            pt.text((x, y + 6 * u), f"RESERVE {len(pv.reserve)}/3", 10 * u, fill=TEXT_DIM, bold=True, anchor="lm")
            for cv in pv.reserve:
                if x + ACT_W * u > x0 + width - 10 * u:
                    break
                _draw_action_card(pt, cv, x, yy)
                x += (ACT_W + 6) * u


def _table_height(v) -> int:
    """Final pixels: the decks column, or the rows of attack and defence cards."""
    rows = int(bool(v.table.attack_cards)) + int(bool(v.table.defence_cards))
    return max(156, 34 + rows * (ACT_H + 24))


def _draw_table(pt, v, x0, y0, width, height):
    u = SS
    d = pt.d
    t = v.table
    d.rounded_rectangle((x0, y0, x0 + width, y0 + height), radius=8 * u, fill=(14, 30, 30), outline=(50, 90, 90),
                        width=u)
    # decks on the left
    x, y = x0 + 14 * u, y0 + 32 * u
    pt.text((x0 + 12 * u, y0 + 13 * u), "TABLE", 12 * u, fill=(140, 200, 200), bold=True, anchor="lm")
    _draw_card_back(pt, x, y, str(v.deck_n), "action deck")
    x += (ACT_W + 14) * u
    if v.top_discard is not None:
        _draw_action_card(pt, v.top_discard, x, y)
        pt.text((x + ACT_W * u / 2, y + (ACT_H + 8) * u), f"discard pile {v.disc_n}", 9 * u, fill=TEXT_DIM,
                anchor="mm")
    else:
        d.rounded_rectangle((x, y, x + ACT_W * u, y + ACT_H * u), radius=6 * u, outline=EDGE, width=u)
        pt.text((x + ACT_W * u / 2, y + ACT_H * u / 2), "empty", 10 * u, fill=TEXT_DIM, anchor="mm")
        pt.text((x + ACT_W * u / 2, y + (ACT_H + 8) * u), "discard pile 0", 9 * u, fill=TEXT_DIM, anchor="mm")
    yy = y + (ACT_H + 26) * u
    pt.text((x0 + 14 * u, yy), f"ship deck {v.sdeck_n}", 11 * u, fill=TEXT_DIM, anchor="lm")
    turn = "set-up" if v.setup else f"game turn {v.round}"
    pt.text((x0 + 14 * u, yy + 16 * u), turn + (f"   reshuffles {v.shuffles}" if v.shuffles else ""), 11 * u,
            fill=TEXT_DIM, anchor="lm")
    if t.drawn is not None:
        pt.text((x0 + 14 * u, yy + 32 * u), pt.fit(f"just drawn: {t.drawn.name}", 10 * u, 200 * u), 10 * u,
                fill=SEL_RGB, anchor="lm")
    # the attack in the middle
    ax0 = x0 + 220 * u
    ax1 = x0 + width - 190 * u
    d.line([(ax0 - 10 * u, y0 + 10 * u), (ax0 - 10 * u, y0 + height - 10 * u)], fill=(40, 70, 70), width=u)
    ay = y0 + 14 * u
    if t.kind != R.AK_NONE:
        head = _table_lines(v)[0]
        pt.text((ax0, ay), pt.fit(head, 12 * u, ax1 - ax0, True), 12 * u, fill=TEXT, bold=True, anchor="lm")
    elif not t.active:
        pt.text((ax0, ay), "no attack on the table", 12 * u, fill=TEXT_DIM, anchor="lm")
    rows = [("ATTACK", t.attack_cards), ("DEFENCE", t.defence_cards)]
    ry = ay + 16 * u
    for title, entries in rows:
        if not entries:
            continue
        pt.text((ax0, ry + 6 * u), title, 9 * u, fill=TEXT_DIM, bold=True, anchor="lm")
        x = ax0 + 56 * u
        for e in entries:
            if x + ACT_W * u > ax1:
                pt.text((x, ry + ACT_H * u / 2), "\u2026", 14 * u, fill=TEXT_DIM, anchor="lm")
                break
            note = f"P{e.who}"
            if e.ship >= 0 and e.card.weapon:
                note = v.ship_label(e.ship)
            if e.link >= 0 and not e.attached and e.link in v.cards:
                note = f"\u2192 #{e.link}"
            if e.card.t == R.T_PRIME and e.mode:
                note = "+1" if e.mode == R.PT_MODE_ADD else "cancel"
            if e.doubler is not None:
                # weapon card and the card doubling it, side by side in one frame
                if x + (2 * ACT_W + 22) * u > ax1:
                    pt.text((x, ry + ACT_H * u / 2), "\u2026", 14 * u, fill=TEXT_DIM, anchor="lm")
                    break
                mult = CATEGORY_RGB["multiplier"]
                d.rounded_rectangle((x - 4 * u, ry + 2 * u, x + (2 * ACT_W + 22) * u, ry + (ACT_H + 20) * u),
                                    radius=8 * u, outline=mult, width=u)
                _draw_action_card(pt, e.card, x, ry + 6 * u, note=note, dim=bool(e.off))
                pt.text((x + (ACT_W + 9) * u, ry + (6 + ACT_H / 2) * u), "\u00d72", 12 * u, fill=mult, bold=True,
                        anchor="mm")
                _draw_action_card(pt, e.doubler.card, x + (ACT_W + 18) * u, ry + 6 * u, note=f"P{e.doubler.who}")
                x += (2 * ACT_W + 32) * u
            else:
                _draw_action_card(pt, e.card, x, ry + 6 * u, note=note, dim=bool(e.off))
                x += (ACT_W + 8) * u
        ry += (ACT_H + 24) * u
    # dice and damage on the right
    rx = x0 + width - 178 * u
    d.line([(rx - 10 * u, y0 + 10 * u), (rx - 10 * u, y0 + height - 10 * u)], fill=(40, 70, 70), width=u)
    ry = y0 + 14 * u
    info = []
    if t.kind != R.AK_NONE and t.roll:
        dice = [n for n in (t.die1, t.die2) if n > 0]
        for j, n in enumerate(dice):
            _draw_die(pt, rx + j * 34 * u, ry, n, 28 * u)
        pt.text((rx + len(dice) * 34 * u + 4 * u, ry + 14 * u), f"roll {t.roll}", 12 * u, fill=TEXT, bold=True,
                anchor="lm")
        ry += 40 * u
    if t.squadrons and t.kind == R.AK_FIGHTERS:
        info.append(f"squadrons {t.squadrons}")
    if t.kind in (R.AK_FIGHTERS, R.AK_PBF, R.AK_PF) and t.def_fire:
        info.append(f"fired at them {t.def_fire}")
    if t.pf_left is not None:
        info.append(f"PF Flotilla left {t.pf_left}")
    if t.pt_add:
        info.append(f"Prime Team +{t.pt_add}")
    if t.pt_sub:
        info.append(f"Prime Team -{t.pt_sub}")
    for w in t.cancels:
        info.append(f"cancelled: {w}")
    if t.predicted is not None:
        info.append(f"damage if resolved now: {t.predicted}")
    for ln in info:
        pt.text((rx, ry + 6 * u), pt.fit(ln, 11 * u, 170 * u), 11 * u, fill=TEXT, anchor="lm")
        ry += 16 * u
    if t.dmg_left:
        pt.text((rx, ry + 10 * u), f"DAMAGE TO PLACE {t.dmg_left}", 12 * u, fill=TARGET_RGB, bold=True, anchor="lm")
        pt.text((rx, ry + 26 * u), pt.fit(f"on {v.ship_label(t.dmg_ship)}", 11 * u, 170 * u), 11 * u, fill=TEXT,
                anchor="lm")
        ry += 36 * u
    if t.rep_left:
        pt.text((rx, ry + 10 * u), f"REPAIR {t.rep_left}", 12 * u, fill=(110, 225, 130), bold=True, anchor="lm")
        pt.text((rx, ry + 26 * u), pt.fit(f"on {v.ship_label(t.rep_ship)}", 11 * u, 170 * u), 11 * u, fill=TEXT,
                anchor="lm")
        ry += 36 * u
    if t.pending is not None and ry + (ACT_H + 20) * u < y0 + height:
        pt.text((rx, ry + 8 * u), "card in play", 9 * u, fill=TEXT_DIM, bold=True, anchor="lm")
        _draw_action_card(pt, t.pending, rx, ry + 16 * u)


def _draw_pool(pt, v, x0, y0, width):
    """The ship pool while players pick their fleets; returns the bottom y."""
    u = SS
    pt.text((x0 + 4 * u, y0 + 8 * u), f"SHIP POOL {len(v.pool)}", 11 * u, fill=TEXT_DIM, bold=True, anchor="lm")
    sc = 0.62
    x, y = x0, y0 + 18 * u
    w = CARD_W * u * sc
    for s in sorted(v.pool, key=lambda s: s.i):
        if x + w > x0 + width:
            x, y = x0, y + (CARD_H * sc + 6) * u
        # a compact card: race band, class, name, VP
        d = pt.d
        d.rounded_rectangle((x, y, x + w, y + CARD_H * u * sc), radius=5 * u, fill=(236, 232, 220),
                            outline=RACE_RGB[s.race_i % len(RACE_RGB)], width=2 * u)
        d.rectangle((x + 2 * u, y + 2 * u, x + w - 2 * u, y + 16 * u), fill=RACE_RGB[s.race_i % len(RACE_RGB)])
        pt.text((x + 5 * u, y + 9 * u), s.cls, 10 * u, fill=(255, 255, 255), bold=True, anchor="lm")
        pt.text((x + w - 5 * u, y + 9 * u), str(s.vp), 10 * u, fill=(255, 240, 160), bold=True, anchor="rm")
        pt.text((x + w / 2, y + 28 * u), pt.fit(s.name, 9 * u, w - 6 * u, True), 9 * u, fill=(20, 20, 30), bold=True,
                anchor="mm")
        words = [f"{n}{SPACE_ABBR[kk]}" for kk, n, _c in s.spaces]
        for j, ln in enumerate(_wrap_px(pt, " ".join(words), 7 * u, w - 6 * u)[:3]):
            pt.text((x + w / 2, y + (39 + 9 * j) * u), ln, 7 * u, fill=(60, 60, 70), anchor="mm")
        pt.text((x + w / 2, y + CARD_H * sc * u - 7 * u), f"#{s.i}", 8 * u, fill=(80, 80, 90), bold=True,
                anchor="mm")
        x += w + 6 * u
    return y + (CARD_H * sc + 8) * u


def _draw_header(pt, v, width, h):
    u = SS
    d = pt.d
    m = 14 * u
    d.rectangle((0, 0, width, h), fill=(14, 18, 34))
    d.line([(0, h), (width, h)], fill=EDGE, width=u)
    y = 18 * u
    pt.text((m, y), "STAR FLEET BATTLE FORCE", 18 * u, fill=TEXT, bold=True, anchor="lm")
    x = m + pt.width("STAR FLEET BATTLE FORCE", 18 * u, True) + 16 * u
    turn = "set-up" if v.setup else f"game turn {v.round}"
    txt = f"{turn}   {v.P} players   {'advanced' if v.advanced else 'basic'} game" + ("   duel" if v.duel else "")
    pt.text((x, y), txt, 13 * u, fill=TEXT_DIM, anchor="lm")
    if v.over:
        pt.text((width - m, y), "GAME OVER", 18 * u, fill=SEL_RGB, bold=True, anchor="rm")
    else:
        col = PLAYER_RGB[v.decider % len(PLAYER_RGB)]
        s = f"P{v.decider} to decide: {v.stage_name}"
        w = pt.width(s, 13 * u, True) + 16 * u
        d.rounded_rectangle((width - m - w, y - 11 * u, width - m, y + 11 * u), radius=5 * u,
                            fill=_mix((14, 18, 34), col, 0.3), outline=col, width=u)
        pt.text((width - m - w / 2, y), s, 13 * u, fill=TEXT, bold=True, anchor="mm")
    status = _status_text(v)
    if v.over and v.result:
        r = v.result
        status += "   Final scores: " + ", ".join(f"P{p} {x}" for p, x in enumerate(r["scores"]))
    pt.text((m, 42 * u), pt.fit(status, 12 * u, width - 2 * m), 12 * u, fill=TEXT, anchor="lm")


def render_rgb(v) -> np.ndarray:
    from PIL import Image, ImageDraw

    u = SS
    W = (1200 if v.P <= 3 else 1400) * u
    m = 12 * u
    header_h = 56 * u
    probe = _Painter(ImageDraw.Draw(Image.new("RGB", (4, 4))))
    me, others = v.players[0], v.players[1:]
    ncols = 1 if len(others) <= 1 else 2
    pw_other = (W - 2 * m - (ncols - 1) * m) / ncols
    rows = [others[j:j + ncols] for j in range(0, len(others), ncols)]
    # side-by-side panels: smaller ship cards, smaller still if that keeps a fleet on one row
    ks = {pv.p: 1.0 if ncols == 1 else _card_scale(pv, pw_other) for pv in others}
    row_h = [max(_panel_height(probe, pv, pw_other, False, ks[pv.p]) for pv in row) for row in rows]
    pool_h = 0
    if v.pool:
        per_row = max(1, int((W - 2 * m) // ((CARD_W * 0.62 + 6) * u)))
        pool_h = (18 + ((len(v.pool) + per_row - 1) // per_row) * (CARD_H * 0.62 + 6) + 10) * u
    me_h = _panel_height(probe, me, W - 2 * m, True)
    table_h = _table_height(v) * u
    H = int(header_h + m + sum(h + m for h in row_h) + pool_h + table_h + m + me_h + m)
    img = Image.new("RGB", (int(W), H), BG)
    pt = _Painter(ImageDraw.Draw(img))
    _draw_header(pt, v, W, header_h)
    y = header_h + m
    for row, h in zip(rows, row_h):
        for j, pv in enumerate(row):
            _draw_panel(pt, v, pv, m + j * (pw_other + m), y, pw_other, h, False, ks[pv.p])
        y += h + m
    if v.pool:
        y = _draw_pool(pt, v, m, y, W - 2 * m)
    _draw_table(pt, v, m, y, W - 2 * m, table_h)
    y += table_h + m
    _draw_panel(pt, v, me, m, y, W - 2 * m, me_h, True)
    out = img.resize((int(W) // u, H // u), Image.LANCZOS)
    return np.asarray(out.convert("RGB"), dtype=np.uint8)


# ----------------------------------------------------------------------------
def render(core, b: int, mode: str, viewer=None):
    """Draw game ``b`` of ``core`` as player ``viewer`` sees it (None: the player to decide):
    ``mode`` "ansi" returns a str, "rgb_array" (or "human") an HxWx3 uint8 array."""
    v = snapshot(core, int(b), viewer)
    if mode == "ansi":
        return render_ansi(v)
    if mode in ("rgb_array", "human"):
        return render_rgb(v)
    raise ValueError(f"Battle Force renders 'ansi' or 'rgb_array', not {mode!r}")
