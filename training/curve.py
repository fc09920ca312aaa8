"""Learning-curve bookkeeping and plot."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback


class CurveCallback(BaseCallback):
    """Records (timestep, episode return, learner won?) for every finished episode."""

    def __init__(self):
        super().__init__()
        self.points: list[tuple[int, float, float]] = []

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            ep = info.get("episode")
            if ep is not None:
                self.points.append((self.num_timesteps, float(ep["r"]), float(info.get("is_success", 0.0))))
        return True


def plot_curve(curve: CurveCallback, path, title: str) -> Path:
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    if curve.points:
        t, r, w = (np.array(x) for x in zip(*curve.points))
        k = min(len(r), max(5, len(r) // 10))  # rolling window in episodes
        smooth = lambda x: np.convolve(x, np.ones(k) / k, mode="valid")  # noqa: E731
        ax[0].plot(t, r, ".", alpha=0.3, label="episode")
        ax[0].plot(t[k - 1:], smooth(r), label=f"mean of {k}")
        ax[1].plot(t[k - 1:], smooth(w))
    ax[0].set(title="episode return", xlabel="learner decisions")
    if curve.points:
        ax[0].legend(loc="lower right")
    else:
        ax[0].text(0.5, 0.5, "no episode finished yet", ha="center", transform=ax[0].transAxes)
    ax[1].set(title="win rate during training", xlabel="learner decisions", ylim=(-0.05, 1.05))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
