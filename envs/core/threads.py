"""The threads that step a batch of games, and how Numba's worker threads wait between calls.

The games' batched kernels (reset, step) and the learner and self-play loops run as serial
kernels over a range of games, compiled ``nogil``; ``run_in_ranges`` (below) cuts a batch into
one range per thread and runs them on Python threads.  Numba's own thread pool (OpenMP) is left
to the one small ``parallel=True`` kernel, ``sampling.sample_legal``; what follows is about it.

Numba's default threading layer here is OpenMP (GNU libgomp), whose workers
spin for a while after each parallel region before they sleep.  On an idle
machine that saves a wake-up; on a machine where anything else wants the cores
(a learner, a second env, another job) the spinning workers take the CPU from
the very thread that has work, and throughput collapses.  Measured on this
project's 2-core machine under a load average of 4, Planetoids random play:
B=256, 10,836 decisions/s spinning against 259,527 with passive waiting; and
``benchmarks/bench.py`` with one core busy elsewhere, B=4096, 244,525 against
719,683.

Fork safety: GNU OpenMP cannot run a parallel region in a process forked from one
whose pool was set up (Numba then kills the child: "fork() called from a process
already using GNU OpenMP").  RL libraries fork their env workers (Gymnasium's
``AsyncVectorEnv``, SB3's ``SubprocVecEnv``, Tianshou, TorchRL, Ray), often after the
parent made an env.  So nothing here runs at import; the pool is set up when the
first ``VecGame`` is made (Numba would load it with the first parallel kernel anyway,
without the wait policy), and the reset and learner-loop kernels run batches of
fewer than ``SERIAL_BELOW`` games in the calling thread, like the step of a core
smaller than ``PARALLEL_FROM``.  A process with one env (or a few) therefore never
enters a parallel region, whoever forked it.  (A child that samples a large batch
with ``sample_legal`` must be started with ``spawn`` or ``forkserver`` if its parent
set up the pool; Numba's fork-safe layers need TBB, or are not thread-safe.  The
ranges' Python threads are fork-safe: a forked child starts its own.)

``configure_thread_pool`` starts Numba's thread pool with
``OMP_WAIT_POLICY=PASSIVE`` (workers sleep at once) unless the user has set
``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` themselves, or the pool is already
running.  The variable is set only while the pool starts and then restored, so
other OpenMP runtimes loaded later in the process (PyTorch bundles its own
libgomp) still see the user's environment.
"""
from __future__ import annotations

import os

import numba
from numba.np.ufunc import parallel as _numba_parallel

WAIT_POLICY = "PASSIVE"

# Waking sleeping workers costs tens of microseconds per parallel call, so small
# batches run the serial kernels (figures of Numba's pool; the ranges' Python threads cost about
# as much: benchmarks in README "Cold start").  Measured on the 2-core machine (random play,
# decisions/s, serial vs parallel): Planetoids B=64 206k vs 132k, B=256 325k vs
# 374k; Talon B=64 273k vs 166k, B=1024 560k vs 782k.  A game whose decisions
# cost more sets its own ``PARALLEL_FROM`` (Battle Force: 64).
PARALLEL_FROM = 256

# Below this many games every kernel (reset, the learner loops) stays in the calling thread, even
# one compiled with parallel=True: a worker process with one env never starts the pool (fork safety).
SERIAL_BELOW = 16


def configure_thread_pool() -> None:
    """Start Numba's worker threads, sleeping when idle (see the module doc)."""
    if _numba_parallel._is_initialized:
        return
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        _numba_parallel._launch_threads()
        return
    os.environ["OMP_WAIT_POLICY"] = WAIT_POLICY
    try:
        _numba_parallel._launch_threads()
    finally:
        del os.environ["OMP_WAIT_POLICY"]


# -- the ranges' threads: VecGame's reset and step, and the loops of core/loops.py -----------------
# Each runs as one serial kernel over a range of games, compiled with ``nogil``, and a batch
# is cut into one range per thread here, in Python threads, rather than in a ``parallel=True``
# kernel: Numba compiles a parallel kernel as three machine-code modules (the kernel, its parfor
# body and the body's wrapper), each holding a copy of the whole game step it calls, so every loop
# cost three compiles of the rules where a range kernel costs one (benchmarks/cold_start.py).  A
# call costs about as much as a parallel region's wake-up (tens of microseconds); batches below
# SERIAL_BELOW games never reach the pool, which starts with the first batch that does.
_pool = None


def _forget_pool_in_child() -> None:
    global _pool
    _pool = None  # a forked child has none of its parent's threads: it starts its own when needed


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def run_in_ranges(kernel, n: int, args_of, serial_below: int = SERIAL_BELOW) -> None:
    """``kernel(*args_of(t), lo, hi)`` over games ``0 .. n-1``: in the calling thread below
    ``serial_below`` games, else cut into one contiguous range per thread (Numba's thread count,
    ``numba.set_num_threads`` included), ``t`` the range's index (its own kernel structs).
    ``serial_below``: where each game is much work (a search's rollouts: whole games of milliseconds
    each), a few games are worth the threads' wake-up."""
    global _pool
    if n >= serial_below:
        configure_thread_pool()  # (Numba's thread count is read from its pool, set up as above)
    chunks = 1 if n < serial_below else max(1, min(numba.get_num_threads(), n))
    if chunks == 1:
        kernel(*args_of(0), 0, n)
        return
    if _pool is None or _pool._max_workers < chunks - 1:
        from concurrent.futures import ThreadPoolExecutor
        _pool = ThreadPoolExecutor(max_workers=chunks - 1, thread_name_prefix="wargym-loop")
    bounds = [c * n // chunks for c in range(chunks + 1)]
    pending = [_pool.submit(kernel, *args_of(c), bounds[c], bounds[c + 1]) for c in range(1, chunks)]
    try:
        kernel(*args_of(0), bounds[0], bounds[1])
    finally:
        for future in pending:
            future.result()
