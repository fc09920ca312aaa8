"""Struct-of-arrays game state with a leading batch dimension.

A game declares its state as a ``StateSpec``: field name -> (per-game shape,
dtype).  ``BatchState`` holds one numpy array per field, shaped ``(B, *shape)``,
and hands Numba a namedtuple of those arrays.  Because the whole state is
plain arrays, cloning is a copy, saving is ``np.savez`` and selecting games is
fancy indexing; no game object ever has to be pickled.

Beside the fields, a ``BatchState`` carries ``truncated``: which games were cut
off by a time limit (the ``max_decisions`` option).  The kernels never read it
(it is not a rule), but a restored or loaded game that had been cut off must
stay over, so ``VecGame.clone_state`` and ``save`` fill it and ``set_state`` and
``load`` restore it.
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAVE_FORMAT = 1
MAX_HEADER_BYTES = 1 << 20   # a save's JSON header (options and meta) unpacked
MAX_SAVED_GAMES = 1 << 20    # games in one save file
NPY_HEADER_BYTES = 4096      # room for a .npy member's own header beside its data


def _check_unpacked_size(data: bytes, limits: dict) -> None:
    """Refuse a save whose zip members would unpack past their limits ({member: bytes}), before
    unpacking any (a zip member's size is read from its directory; reading stops there)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                limit = limits.get(info.filename)
                if limit is not None and info.file_size > limit:
                    raise ValueError(f"save file member {info.filename[:40]!r} unpacks to {info.file_size} bytes; "
                                     f"at most {limit} expected")
    except zipfile.BadZipFile as exc:
        raise ValueError(f"not a readable wargym save file: {exc}") from None


@dataclass(frozen=True)
class StateSpec:
    game: str
    fields: tuple[tuple[str, tuple[int, ...], str], ...]  # (name, per-game shape, dtype)
    # namedtuple class the kernels receive; must be defined at module level in
    # the game's package so Numba's on-disk cache can find it again
    view_type: type = None

    def fingerprint(self) -> str:
        return _schema_fingerprint(self.game, self.fields)


@functools.lru_cache(maxsize=None)
def _schema_fingerprint(game: str, fields: tuple) -> str:
    # cached: BatchState.assign checks it on every copy (wargym serve loads a
    # match's state into a worker's env on every request)
    text = json.dumps([game, [list(f) for f in fields]])
    return hashlib.sha256(text.encode()).hexdigest()[:16]



class BatchState:
    """The full state of B games; every field is a numpy array ``(B, ...)``."""

    def __init__(self, spec: StateSpec, batch_size: int, arrays: dict | None = None, truncated=None):
        self.spec = spec
        self.batch_size = int(batch_size)
        if arrays is None:
            arrays = {name: np.zeros((batch_size, *shape), dtype=dtype) for name, shape, dtype in spec.fields}
        self.arrays = arrays
        self.truncated = (np.zeros(self.batch_size, dtype=np.bool_) if truncated is None
                          else np.array(truncated, dtype=np.bool_).reshape(self.batch_size))
        self.view = spec.view_type(*(arrays[name] for name, _, _ in spec.fields))

    def thread_views(self, n: int) -> tuple:
        """``n`` kernel views of the same arrays, one per thread (cached).

        Each view owns its own reference counts, so threads never contend on them."""
        views = self.__dict__.get("_thread_views")
        if views is None or len(views) != n:
            views = tuple(self.spec.view_type(*(self.arrays[name] for name, _, _ in self.spec.fields))
                          for _ in range(n))
            self.__dict__["_thread_views"] = views
        return views

    def __reduce__(self):
        """Pickled and deep-copied as its arrays: the kernel views are rebuilt on the other side."""
        return BatchState, (self.spec, self.batch_size, self.arrays, self.truncated)

    def __getattr__(self, name):
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    # -- copies and selections ---------------------------------------------
    def clone(self) -> "BatchState":
        return BatchState(self.spec, self.batch_size, {k: v.copy() for k, v in self.arrays.items()}, self.truncated)

    def select(self, index) -> "BatchState":
        """A new state holding copies of the games at ``index`` (int, slice or list)."""
        idx = np.atleast_1d(np.arange(self.batch_size)[index])
        return BatchState(self.spec, len(idx), {k: v[idx].copy() for k, v in self.arrays.items()},
                          self.truncated[idx])

    def assign(self, index, other: "BatchState") -> None:
        """Overwrite the games at ``index`` with the games of ``other`` (same spec)."""
        self._check_same_spec(other)
        idx = np.atleast_1d(np.arange(self.batch_size)[index])
        if len(idx) != other.batch_size:
            raise ValueError(f"cannot assign {other.batch_size} games to {len(idx)} slots")
        for k, v in self.arrays.items():
            v[idx] = other.arrays[k]
        self.truncated[idx] = other.truncated

    def _check_same_spec(self, other: "BatchState") -> None:
        if other.spec is not self.spec and other.spec.fingerprint() != self.spec.fingerprint():
            raise ValueError(f"state of game {other.spec.game!r} does not match {self.spec.game!r} (schema differs)")

    # -- serialisation -----------------------------------------------------
    def to_bytes(self, meta: dict | None = None) -> bytes:
        buf = io.BytesIO()
        header = {"format": SAVE_FORMAT, "game": self.spec.game, "schema": self.spec.fingerprint(),
                  "batch_size": self.batch_size, "meta": meta or {}}
        np.savez_compressed(buf, __header__=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
                            __truncated__=self.truncated, **self.arrays)
        return buf.getvalue()

    def save(self, path, meta: dict | None = None) -> None:
        Path(path).write_bytes(self.to_bytes(meta))

    @staticmethod
    def read_header(data: bytes) -> dict:
        """The header of a saved state (format, game, schema, batch size, meta), checked for format."""
        _check_unpacked_size(data, {"__header__.npy": MAX_HEADER_BYTES})
        try:
            npz = np.load(io.BytesIO(data), allow_pickle=False)
            header = json.loads(bytes(npz["__header__"]).decode())
        except Exception as exc:  # zip or json damage
            raise ValueError(f"not a readable wargym save file: {exc}") from exc
        if not isinstance(header, dict) or header.get("format") != SAVE_FORMAT:
            got = header.get("format") if isinstance(header, dict) else None
            raise ValueError(f"save format {got} is not supported (expected {SAVE_FORMAT})")
        return header

    @classmethod
    def from_bytes(cls, spec: StateSpec, data: bytes) -> tuple["BatchState", dict]:
        """Parse a saved state; any mismatch raises ``ValueError`` naming it."""
        # the header first: another game's file is named as such, not as a missing field
        header = cls.read_header(data)
        if header.get("game") != spec.game:
            raise ValueError(f"save file holds game {header.get('game')!r}, not {spec.game!r}")
        n = header.get("batch_size")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_SAVED_GAMES:
            raise ValueError(f"save file's batch_size must be an integer 1..{MAX_SAVED_GAMES}, got {n!r}")
        # a member may say it unpacks to no more than its field's bytes: a small file that inflates to
        # gigabytes is refused before a byte of it is unpacked
        _check_unpacked_size(data, {f"{name}.npy": n * int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
                                    + NPY_HEADER_BYTES for name, shape, dtype in spec.fields}
                             | {"__truncated__.npy": n + NPY_HEADER_BYTES})
        try:
            npz = np.load(io.BytesIO(data), allow_pickle=False)
            arrays = {name: npz[name] for name, _, _ in spec.fields}
            # files written before truncation was saved hold no flags: none of their games was cut off
            truncated = npz["__truncated__"] if "__truncated__" in npz.files else None
        except Exception as exc:  # missing-field damage
            raise ValueError(f"not a readable wargym save file: {exc}") from exc
        if header.get("schema") != spec.fingerprint():
            raise ValueError("save file was written by a different state schema (another wargym version)")
        for name, shape, dtype in spec.fields:
            a = arrays[name]
            if a.shape != (n, *shape) or a.dtype != np.dtype(dtype):
                raise ValueError(f"save file field {name!r} has shape {a.shape} {a.dtype}, "
                                 f"expected {(n, *shape)} {np.dtype(dtype)}")
        if truncated is not None and (truncated.shape != (n,) or truncated.dtype != np.bool_):
            raise ValueError(f"save file's truncation flags have shape {truncated.shape} {truncated.dtype}, "
                             f"expected ({n},) bool")
        state = cls(spec, n, {k: np.ascontiguousarray(v) for k, v in arrays.items()}, truncated)
        return state, header.get("meta", {})

    @classmethod
    def load(cls, spec: StateSpec, path) -> tuple["BatchState", dict]:
        return cls.from_bytes(spec, Path(path).read_bytes())

    def nbytes_per_game(self) -> int:
        return sum(v[0].nbytes for v in self.arrays.values())
