"""Process settings for training on the CPU.

``keep_freed_memory``: glibc serves allocations above 32 MB (128 KB by default,
raised dynamically) with fresh ``mmap`` pages and returns them on free, so every
large tensor of a PPO update (a minibatch of Planetoids observations as float32
is 72 MB) is paid for in page faults, which are slow in a virtual machine.
Measured on the 2-core development machine: the Planetoids network's forward
pass over 2,048 observations, 74 -> 30 us per observation.  With mmap off and
trimming off, freed memory stays in the heap and is reused at once; the cost is
that the process keeps its peak memory until it exits.

``pick_device``: ``--device auto`` trains on a CUDA GPU when torch sees one, else on the CPU.

``torch_threads``: the core's threads and torch's take turns (the env steps, then
the network runs), so torch gets every core: on the quiet 2-core development machine
Talon's PPO phase ran at 10,408 decisions/s with two threads, 8,876 with two threads
waiting passively (``OMP_WAIT_POLICY=PASSIVE``) and about 7,000 with one.  On a busy
machine it is the other way round: OpenMP's spinning barriers collapse when another
process holds a core (with a load average of 5, the Battle Force network's forward pass
took 276 us per observation with two threads, 24 us with one), so there pass
``--threads 1`` (or set ``OMP_NUM_THREADS``, which the default follows, as torch does).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os

M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4


def keep_freed_memory() -> bool:
    """Turn glibc's mmap and trimming off for this process (no-op elsewhere); True if done."""
    name = ctypes.util.find_library("c")
    if not name or os.environ.get("WARGYM_KEEP_MALLOC"):
        return False
    try:
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(M_MMAP_MAX, 0)) and bool(libc.mallopt(M_TRIM_THRESHOLD, 2**62))
    except (OSError, AttributeError):  # not glibc
        return False


def torch_threads(requested: int | None = None) -> int:
    """``requested``, else ``OMP_NUM_THREADS`` where the user set it (as torch itself reads it), else every core."""
    from_env = os.environ.get("OMP_NUM_THREADS", "")
    return requested or (int(from_env) if from_env.isdigit() and int(from_env) > 0 else 0) or os.cpu_count() or 1


def pick_device(requested: str = "auto") -> str:
    """The torch device to train on: ``requested``, or with ``"auto"`` the first CUDA GPU when
    torch sees one, else the CPU.  A CUDA device asked for but absent is an error, not a silent CPU."""
    import torch
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"--device {requested}: torch sees no CUDA GPU here (torch {torch.__version__}); "
                         "use --device cpu or auto")
    return requested
