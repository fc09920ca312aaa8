"""UnionWars' shared test helpers (from tests/test_union_wars_rules.py): the env on the open
field, scripted-dice scenarios, action shortcuts and state accessors, and the set-ups that
several test files start from.  Armies are the default ones: humanity slots 0 capitano,
1 psionico, 2 fante, 3 fante, 4 mitragliere, 5 tiratore scelto; xeno 0 signore dello sciame,
1 mente dell'alveare, 2-5 guerriero, 6 mimetico, 7 predatore alato.
"""
from __future__ import annotations

from wargym.envs import union_wars_v1, union_wars_v2
from wargym.envs.union_wars import layout as L


def new_env(**opts):
    """union_wars_v1 (no action table: the rules tests need none, and it costs a step time)."""
    return union_wars_v1.raw_env(table="open_field", mission=1, **opts)


def new_env_v2(**opts):
    """union_wars_v2: the observation with the action table (relations.py)."""
    return union_wars_v2.raw_env(table="open_field", mission=1, **opts)


def start(env, models, dice=(), active=0, **kw):
    env.reset(seed=0, options={"scenario": {"active": active, "models": models, "dice": list(dice), **kw}})
    return env


def model(player, slot, x, y, facing=90, **kw):
    return {"player": player, "slot": slot, "x": x, "y": y, "facing_deg": facing, **kw}


def A(env, key):
    return int(env.core.cfg.k[getattr(L, "K_" + key)])


def md(env, player, slot, col):
    return int(env.core.state.md[0, player, slot, col])


def g(env, col):
    return int(env.core.state.g[0, col])


def act(env, slot, ak, target=None, mine=False):
    env.step(A(env, "A_MODEL") + slot)
    env.step(A(env, "A_ACT") + ak)
    if target is not None:
        env.step(A(env, "A_MINE" if mine else "A_THEIR") + target)


def move_choice(direction, quarters):
    return direction * (L.N_DIST + 1) + quarters


def throw_at_point(env, slot, ak, direction, quarters):
    env.step(A(env, "A_MODEL") + slot)
    env.step(A(env, "A_ACT") + ak)
    env.step(A(env, "A_MOVE") + move_choice(direction, quarters))


def sergente_env():
    return new_env(armies=[["umanita", ["capitano", "sergente artigliere"]], "xeno:default_250"])


def charged_to_a_won_melee(env):
    """The fante charges the guerriero (the charge and melee of
    test_charge_reaches_with_m_plus_2d6_and_melee_is_won_by_more_wounds in
    tests/test_union_wars_rules.py, the second guerriero far away keeps the game going) and the
    consolidation's 2D6 is 3 + 4; returns the env before the pass that ends the tactical phase
    and fights the melee."""
    env = start(env, [model(0, 2, 60, 20), model(1, 2, 60, 35, 270, car=0), model(1, 3, 100, 100, car=0)],
                dice=[1, 1, 6, 3, 3, 1, 6, 2, 2, 5, 3, 3, 3, 4])
    act(env, 2, L.AK_CHARGE, 2)
    if g(env, L.G_STAGE) == L.ST_REACT:
        env.step(A(env, "A_PASS"))
    return env


def asked_about_a_hit(bank=(0, 5)):
    """ESPLORAZIONE: the fante (humanity 2) fires at the guerriero (xeno 2); player 1 is asked whether
    to spend a malus on the hit (the to-hit dice 4 and 3 scripted, any die after them the game's
    stream's; player 1's bank ``bank[1]``)."""
    env = start(new_env(), [model(0, 2, 60, 20), model(1, 2, 60, 50, 270, car=0)], dice=[4, 3], bank=list(bank))
    env.step(A(env, "A_MODEL") + 2)
    env.step(A(env, "A_ACT") + L.AK_FIRE0)
    env.step(A(env, "A_THEIR") + 2)
    assert int(env.core.state.g[0, L.G_STAGE]) == L.ST_BANK
    return env
