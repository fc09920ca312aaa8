"""Carrying out an action: ``decide``, the one compiled copy of the legality and state-change rules
that the step kernels and ``action_reason`` share, and ``_apply``, which picks each action family's effect
from the chapter modules as ``_reason`` picks its condition.
"""
from __future__ import annotations

import numpy as np

from ..core.kernel import kernel
from .layout import (CRUISER, EXIT_FACE, EXIT_HEX, G_DECIDER, G_PHASE, K_A_COLONISE, K_A_END_ACT, K_A_END_TURN,
                     K_A_FACE, K_A_FIXED, K_A_HEX, K_A_HYPER, K_A_LAUNCH, K_A_MOVE, K_A_PIECE, K_A_REPAIR, K_A_TARGET,
                     OK, SETUP, config_view, state_view)
from .board import _occupancy
from .combat import fire_at_fixed, fire_at_hex, fire_at_piece
from .turn import end_activation, end_move
from .hyperspace import enter_hyperspace, exit_facing, exit_to_hex
from .phases import launch, place_base, select_piece
from .movement import move_step, pivot
from .repair import repair
from .colonisation import colonise
from .legality import _reason


@kernel(cache=True, forceinline=False)
def action_reason(s, cfg, b, a):
    """Reason code why action ``a`` is illegal in game ``b`` now (0 = legal)."""
    return decide(s, cfg, b, a, np.bool_(False))  # np.bool_: one compiled decide, not one per literal


@kernel(cache=True, forceinline=False)
def decide(s0, cfg0, b, a, apply):
    """The reason code of action ``a`` in game ``b`` (0 = legal); with ``apply``,
    a legal action is also carried out.  The one compiled copy of the legality
    and state-change rules that the step kernels and ``action_reason`` share."""
    s, cfg = state_view(s0), config_view(cfg0)
    code = _reason(s, cfg, b, a)
    if code == OK and apply:
        _apply(s, cfg, b, a)
    return code


@kernel(cache=True, forceinline=True)
def _apply(s, cfg, b, a):
    """Carry out a legal action (checked by the caller, see ``decide``): the effect of each family,
    chosen as ``_reason`` chooses its condition.

    Occupancy is rebuilt after the actions that place, move, turn or remove a
    piece or found a fixed base; a destruction rebuilds it in destroy_cascade,
    and the other actions (shots that destroy nothing, selection, repair, end
    of activation or of the move) leave every input of it unchanged."""
    p = s.g[b, G_DECIDER]
    ph = s.g[b, G_PHASE]
    moved = False
    if a < cfg.k[K_A_TARGET]:
        select_piece(s, cfg, b, p, a - cfg.k[K_A_PIECE])
    elif a < cfg.k[K_A_FIXED]:
        fire_at_piece(s, cfg, b, a - cfg.k[K_A_TARGET])
    elif a < cfg.k[K_A_HEX]:
        fire_at_fixed(s, cfg, b, a - cfg.k[K_A_FIXED])
    elif a < cfg.k[K_A_MOVE]:
        cell = a - cfg.k[K_A_HEX]
        if ph == SETUP:
            place_base(s, cfg, b, p, cell)
            moved = True
        elif ph == EXIT_HEX:
            moved = exit_to_hex(s, cfg, b, p, cell)
        else:
            fire_at_hex(s, cfg, b, cell)
    elif a < cfg.k[K_A_FACE]:
        move_step(s, cfg, b, p, a - cfg.k[K_A_MOVE])
        moved = True
    elif a < cfg.k[K_A_HYPER]:
        if ph == EXIT_FACE:
            exit_facing(s, cfg, b, p, a - cfg.k[K_A_FACE])
        else:
            pivot(s, cfg, b, p, a - cfg.k[K_A_FACE])
        moved = True
    elif a < cfg.k[K_A_LAUNCH]:
        enter_hyperspace(s, cfg, b, p)
        moved = True
    elif a < cfg.k[K_A_COLONISE]:
        k = a - cfg.k[K_A_LAUNCH]
        launch(s, cfg, b, p, CRUISER + k // 3, k % 3)
        moved = True
    elif a == cfg.k[K_A_COLONISE]:
        colonise(s, cfg, b, p)
        moved = True
    elif a == cfg.k[K_A_REPAIR]:
        repair(s, cfg, b, p)
    elif a == cfg.k[K_A_END_ACT]:
        end_activation(s, b)
    elif a == cfg.k[K_A_END_TURN]:
        end_move(s, cfg, b)
    if moved:
        _occupancy(s, cfg, b)
