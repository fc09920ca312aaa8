"""Tables from a tournament: win/draw/loss per pairing and per seat, ratings; CSV and Markdown."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from .matches import Tournament
from .stats import fit_elo, rate_multiplayer, wilson_interval

WIN, DRAW, LOSS = 0, 1, 2


def head_to_head(t: Tournament) -> np.ndarray:
    """``counts[a, b, seat, k]``: games (seat pairs, with more than two players) in which policy
    ``a`` sitting in ``seat`` won (k=0), drew (1) or lost (2) against a seat of policy ``b``.
    With more than two players every pair of seats held by different policies is one comparison:
    the seat with the higher result wins it."""
    n, players = len(t.policies), t.players
    counts = np.zeros((n, n, players, 3), dtype=np.int64)
    for i in range(players):
        for j in range(players):
            if i == j:
                continue
            a, b = t.lineups[:, i], t.lineups[:, j]
            diff = t.results[:, i] - t.results[:, j]
            outcome = np.where(diff > 0, WIN, np.where(diff < 0, LOSS, DRAW))
            differ = a != b
            np.add.at(counts, (a[differ], b[differ], i, outcome[differ]), 1)
    return counts


def _rates(w, d, l):
    n = w + d + l
    row = {"games": n, "wins": w, "draws": d, "losses": l}
    for key, k in (("win", w), ("draw", d), ("loss", l)):
        lo, hi = wilson_interval(k, n)
        row[f"{key}_rate"] = k / n if n else float("nan")
        row[f"{key}_ci95_lo"], row[f"{key}_ci95_hi"] = lo, hi
    return row


def pairing_rows(t: Tournament, counts: np.ndarray) -> list[dict]:
    """One row per pairing (a before b in the entry order), from a's side."""
    rows = []
    for a in range(len(t.policies)):
        for b in range(a + 1, len(t.policies)):
            w, d, l = (int(x) for x in counts[a, b].sum(axis=0))
            rows.append({"policy": t.policies[a], "opponent": t.policies[b], **_rates(w, d, l)})
    return rows


def seat_rows(t: Tournament, counts: np.ndarray) -> list[dict]:
    """One row per pairing and seat of the first policy."""
    rows = []
    for a in range(len(t.policies)):
        for b in range(a + 1, len(t.policies)):
            for seat in range(t.players):
                w, d, l = (int(x) for x in counts[a, b, seat])
                rows.append({"policy": t.policies[a], "seat": seat, "opponent": t.policies[b], **_rates(w, d, l)})
    return rows


def rating_rows(t: Tournament, counts: np.ndarray, anchor: str = "random") -> tuple[list[dict], str]:
    """Ratings, best first, and a note on how they were computed.

    Two players: Elo fitted by maximum likelihood over the whole matrix, ``anchor`` (random if
    it plays, else the first policy) at 0.  More players: openskill (Plackett-Luce) ratings.
    Both carry each policy's score over its head-to-head comparisons (draws half)."""
    totals = counts.sum(axis=2)  # [a, b, k]
    per_policy = totals.sum(axis=1)  # [a, k]
    rows = []
    for i, name in enumerate(t.policies):
        w, d, l = (int(x) for x in per_policy[i])
        n = w + d + l
        lo, hi = wilson_interval(w + 0.5 * d, n)
        rows.append({"policy": name, "comparisons": n, "score": (w + 0.5 * d) / n if n else float("nan"),
                     "score_ci95_lo": lo, "score_ci95_hi": hi})
    if t.players == 2:
        anchor_index = t.policies.index(anchor) if anchor in t.policies else 0
        fit = fit_elo(totals[:, :, WIN], totals[:, :, DRAW], anchor=anchor_index)
        for i, row in enumerate(rows):
            row["elo"], row["elo_ci95"] = float(fit["ratings"][i]), float(fit["ci95"][i])
        note = (f"Elo: maximum-likelihood fit over all games (draws half a win), "
                f"{t.policies[anchor_index]} = 0; ± is a 95 % interval relative to it.")
        if fit["prior_used"]:
            note += (f" Some policy won or lost every game, so the fit adds {fit['prior_used']} pseudo-games "
                     "won to every cell (OpenSpiel's smoothing); those ratings are bounded by that prior.")
        rows.sort(key=lambda r: -r["elo"])
        return rows, note
    games = list(zip(t.lineups, t.results))
    skill = rate_multiplayer(games, t.policies)
    for row in rows:
        row.update(skill[row["policy"]])
    rows.sort(key=lambda r: -r["ordinal"])
    note = (f"openskill (Plackett-Luce) ratings from the {len(games)} games' final places, rated in "
            "order; ordinal = mu - 3 sigma. Score: share of head-to-head seat comparisons won (draws half).")
    return rows, note


def summarise(t: Tournament, anchor: str = "random") -> dict:
    counts = head_to_head(t)
    ratings, note = rating_rows(t, counts, anchor)
    return {"ratings": ratings, "rating_note": note, "pairings": pairing_rows(t, counts),
            "seats": seat_rows(t, counts)}


# -- output ---------------------------------------------------------------------------------
def _whole(x):
    return str(round(x)) if np.isfinite(x) else "∞"  # round(): no "-0"


def _pct(rate, lo, hi):
    return f"{100 * rate:.1f} ({100 * lo:.1f}–{100 * hi:.1f})" if rate == rate else "–"


def markdown(t: Tournament, summary: dict) -> str:
    lines = [f"## Arena: {t.game}, {t.players} players",
             "",
             f"{len(t.lineups)} games: {t.games_per_lineup} per lineup, seats rotated; seed {t.seed}; "
             f"options {_options_text(t.options)}.",
             "",
             "Policies: " + "; ".join(f"{name} ({source})" for name, source in t.sources.items()) + ".",
             "",
             "### Ratings",
             ""]
    if t.players == 2:
        lines += ["| policy | Elo | ± 95 % | games | score % (95 % CI) |", "|---|---:|---:|---:|---|"]
        for r in summary["ratings"]:
            lines.append(f"| {r['policy']} | {_whole(r['elo'])} | {_whole(r['elo_ci95'])} | {r['comparisons']} | "
                         f"{_pct(r['score'], r['score_ci95_lo'], r['score_ci95_hi'])} |")
    else:
        lines += ["| policy | ordinal | mu | sigma | games | head-to-head score % (95 % CI) |",
                  "|---|---:|---:|---:|---:|---|"]
        for r in summary["ratings"]:
            lines.append(f"| {r['policy']} | {r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['games']} | "
                         f"{_pct(r['score'], r['score_ci95_lo'], r['score_ci95_hi'])} |")
    # with more than two players a row counts pairs of seats, not games
    games = "games" if t.players == 2 else "seat pairs"
    lines += ["", summary["rating_note"], "", "### Pairings", "",
              "Win, draw and loss % of the first policy with 95 % Wilson intervals"
              + ("." if t.players == 2 else "; each pair of seats held by the two policies in a game is one "
                 "comparison, won by the seat with the better final place."),
              "",
              f"| policy | opponent | {games} | W | D | L | win % | draw % | loss % |",
              "|---|---|---:|---:|---:|---:|---|---|---|"]
    for r in summary["pairings"]:
        lines.append(_wdl_line(r, r["policy"]))
    lines += ["", "### By seat of the first policy", "",
              f"| policy (seat) | opponent | {games} | W | D | L | win % | draw % | loss % |",
              "|---|---|---:|---:|---:|---:|---|---|---|"]
    for r in summary["seats"]:
        lines.append(_wdl_line(r, f"{r['policy']} ({r['seat']})"))
    return "\n".join(lines) + "\n"


def _wdl_line(r, label):
    return (f"| {label} | {r['opponent']} | {r['games']} | {r['wins']} | {r['draws']} | {r['losses']} | "
            f"{_pct(r['win_rate'], r['win_ci95_lo'], r['win_ci95_hi'])} | "
            f"{_pct(r['draw_rate'], r['draw_ci95_lo'], r['draw_ci95_hi'])} | "
            f"{_pct(r['loss_rate'], r['loss_ci95_lo'], r['loss_ci95_hi'])} |")


def _options_text(options):
    return ", ".join(f"{k}={v!r}" for k, v in sorted(options.items())) or "defaults"


def write_outputs(t: Tournament, summary: dict, out_dir) -> list[Path]:
    """ratings.csv, pairings.csv, seats.csv, games.csv (every game) and arena.md in ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [_write_csv(out / f"{key}.csv", summary[key]) for key in ("ratings", "pairings", "seats")]
    games = [{"game": g, "round": int(t.rounds[g]),
              **{f"seat_{s}": t.policies[t.lineups[g, s]] for s in range(t.players)},
              **{f"result_{s}": float(t.results[g, s]) for s in range(t.players)}} for g in range(len(t.lineups))]
    paths.append(_write_csv(out / "games.csv", games))
    md = out / "arena.md"
    md.write_text(markdown(t, summary))
    paths.append(md)
    return paths


def _write_csv(path: Path, rows: list[dict]) -> Path:
    fields = list(rows[0]) if rows else []
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return path
