"""The arena's statistics: Wilson score intervals, Elo by maximum likelihood, openskill ratings.

Pure functions of counts and result lists (no game code), so they can be checked against
hand-computed values.
"""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal
ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per unit of log-odds (a 10:1 edge is 400 points)
# Pseudo-count added to every cell of the half-win matrix when the plain maximum-likelihood
# fit does not exist; the same default as OpenSpiel's open_spiel/evaluation/elo.h.
DEFAULT_ELO_PRIOR = 0.1


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (Wilson 1927); (0, 1) for n = 0."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def half_win_matrix(wins: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``W[i, j]`` = games i won against j plus half the draws between them (OpenSpiel's convention)."""
    wins = np.asarray(wins, dtype=float)
    draws = np.asarray(draws, dtype=float)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or draws.shape != wins.shape:
        raise ValueError(f"wins and draws must be square matrices of one shape, got {wins.shape} and {draws.shape}")
    if (wins < 0).any() or (draws < 0).any() or not np.allclose(draws, draws.T):
        raise ValueError("win counts must be non-negative and the draw matrix symmetric")
    return wins + 0.5 * draws


def mle_exists(half_wins: np.ndarray) -> bool:
    """True if the Bradley-Terry likelihood has a finite maximum: every policy must reach every
    other through a chain of "scored at least half a point against" (strong connectivity).
    A policy that won or lost every game it played (a perfect separation) breaks it."""
    beats = (half_wins > 0) & ~np.eye(len(half_wins), dtype=bool)
    n = len(half_wins)
    for direction in (beats, beats.T):
        reached = np.zeros(n, dtype=bool)
        reached[0] = True
        frontier = reached.copy()
        while frontier.any():
            new = direction[frontier].any(axis=0) & ~reached
            reached |= new
            frontier = new
        if not reached.all():
            return False
    return True


def fit_elo(wins, draws=None, anchor: int = 0, prior: float | None = None, max_iterations: int = 200,
            tolerance: float = 1e-10) -> dict:
    """Elo ratings by maximum likelihood over a whole results matrix (Bradley-Terry model).

    ``wins[i, j]``: games policy i won against policy j; ``draws[i, j]`` (symmetric): games
    they drew, counted as half a win each (as OpenSpiel's open_spiel/evaluation/elo does).  The
    model: P(i beats j) = 1 / (1 + 10^((r_j - r_i)/400)).  The maximum is found by Newton's
    method on the (concave) log-likelihood; OpenSpiel's MM iteration reaches the same point,
    but slowly when a policy is far stronger than another.  Ratings are shifted so that policy
    ``anchor`` has 0.

    ``prior``: pseudo-count added to every off-diagonal cell of the half-win matrix (OpenSpiel's
    smoothing).  ``None`` (default) adds nothing when the maximum-likelihood fit exists and
    ``DEFAULT_ELO_PRIOR`` when it does not (a policy that won or lost all its games would
    otherwise get an infinite rating); ``prior_used`` in the result says which.

    Returns ``ratings`` (array), ``ci95`` (half-width of a 95 % interval from the observed
    Fisher information, relative to the anchor; 0 for the anchor), ``prior_used``.
    """
    draws = np.zeros_like(np.asarray(wins, dtype=float)) if draws is None else draws
    half_wins = half_win_matrix(wins, draws)
    n = len(half_wins)
    if n < 2:
        raise ValueError("an Elo fit needs at least two policies")
    if not 0 <= anchor < n:
        raise ValueError(f"anchor {anchor} is not a policy index (0..{n - 1})")
    if prior is None:
        prior = 0.0 if mle_exists(half_wins) else DEFAULT_ELO_PRIOR
    if prior < 0:
        raise ValueError(f"prior must be >= 0, got {prior}")
    W = np.where(~np.eye(n, dtype=bool), half_wins + prior, 0.0)
    if prior == 0 and not mle_exists(W):
        raise ValueError("the results have no finite Elo fit (a perfect separation or a policy without "
                         "games); use a positive prior")
    log_strength = _newton_bradley_terry(W, anchor, max_iterations, tolerance)
    ratings = ELO_SCALE * (log_strength - log_strength[anchor])
    return {"ratings": ratings, "ci95": _elo_ci95(log_strength, W + W.T, anchor), "prior_used": prior}


def _log_likelihood(W, theta):
    return -(W * np.logaddexp(0.0, theta[None, :] - theta[:, None])).sum()


def _fisher_information(theta, games):
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
    w = games * p * (1 - p)
    return p, np.diag(w.sum(axis=1)) - w


def _newton_bradley_terry(W, anchor, max_iterations, tolerance):
    """Log-strengths maximising sum W[i, j] log P(i beats j), the anchor's held at 0; Newton
    steps, halved while they would lower the likelihood."""
    games = W + W.T
    theta = np.zeros(len(W))
    free = np.arange(len(W)) != anchor
    likelihood = _log_likelihood(W, theta)
    for _ in range(max_iterations):
        p, info = _fisher_information(theta, games)
        gradient = W.sum(axis=1) - (games * p).sum(axis=1)
        step = np.zeros_like(theta)
        step[free] = np.linalg.solve(info[np.ix_(free, free)], gradient[free])
        scale = 1.0
        while True:
            candidate = theta + scale * step
            new_likelihood = _log_likelihood(W, candidate)
            if new_likelihood >= likelihood - 1e-12 or scale < 1e-9:
                break
            scale /= 2
        theta, likelihood = candidate, new_likelihood
        if np.max(np.abs(scale * step)) < tolerance:
            break
    return theta


def _elo_ci95(log_strength, games, anchor):
    """Half-width of 95 % intervals, relative to the anchor: the inverse of the observed Fisher
    information of the log-strengths with the anchor's held fixed."""
    _, info = _fisher_information(log_strength, games)
    keep = np.arange(len(games)) != anchor
    out = np.zeros(len(games))
    try:
        cov = np.linalg.inv(info[np.ix_(keep, keep)])
        out[keep] = Z95 * ELO_SCALE * np.sqrt(np.clip(np.diag(cov), 0, None))
    except np.linalg.LinAlgError:
        out[keep] = np.inf
    return out


def elo_difference(score: float) -> float:
    """Elo difference that gives an expected score ``score`` (0 < score < 1): 400 log10(s / (1 - s))."""
    if not 0 < score < 1:
        raise ValueError(f"score must be strictly between 0 and 1, got {score}")
    return 400.0 * math.log10(score / (1 - score))


def ranks_from_results(results) -> list[int]:
    """Competition ranks, 0 = best, from one game's per-seat results (higher is better); equal
    results share a rank (1, 1, 3 style: the number of seats that did strictly better)."""
    results = list(results)
    return [sum(other > mine for other in results) for mine in results]


def rate_multiplayer(games, policies: list[str], model=None) -> dict:
    """openskill ratings (Weng-Lin, Plackett-Luce model by default) from multiplayer games.

    ``games``: sequence of ``(lineup, results)``: the policy index in each seat and each seat's
    result (higher is better; equal results tie).  Games are rated online in the order given,
    each seat a team of one.  A policy that holds several seats of one game (the same bot twice
    at a four-player table) enters each seat with its current rating and afterwards takes the
    average of its seats' new mu and sigma, so one game moves it once, not once per seat.

    Returns ``{policy: {"mu", "sigma", "ordinal", "games"}}``; ``ordinal`` is openskill's
    conservative estimate mu - 3 sigma.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError as e:  # pragma: no cover - the arena extra installs it
        raise ImportError("multiplayer ratings need the openskill package: pip install 'wargym[arena]'") from e
    model = model or PlackettLuce()
    ratings = [model.rating(name=name) for name in policies]
    played = [0] * len(policies)
    for lineup, results in games:
        lineup = [int(i) for i in lineup]
        if len(lineup) != len(results) or len(lineup) < 2:
            raise ValueError(f"a game needs one result per seat and at least two seats, got {lineup} / {results}")
        teams = [[model.rating(mu=ratings[i].mu, sigma=ratings[i].sigma, name=policies[i])] for i in lineup]
        new = model.rate(teams, ranks=ranks_from_results(results))
        for policy in set(lineup):
            seats = [k for k, i in enumerate(lineup) if i == policy]
            ratings[policy].mu = float(np.mean([new[k][0].mu for k in seats]))
            ratings[policy].sigma = float(np.mean([new[k][0].sigma for k in seats]))
            played[policy] += 1
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma, "games": played[i]}
            for i, (name, r) in enumerate(zip(policies, ratings))}
