"""``hexgames._jit.view_as``: ``a.view(dtype)`` in compiled code without numba's checks."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from hexgames._jit import view_as


@numba.njit
def _as_int32(a, start, stop):  # type: ignore[no-untyped-def]
    return view_as(a[start:stop], np.int32)


@numba.njit
def _as_bool(a, start, stop):  # type: ignore[no-untyped-def]
    return view_as(a[start:stop], np.bool_)


@numba.njit
def _as_int64(a, start, stop):  # type: ignore[no-untyped-def]
    return view_as(a[start:stop], np.int64)


@pytest.mark.parametrize("view,source,start,stop", [
    (_as_int32, np.arange(-5, 7, dtype=np.int64) * 3_000_000_001, 2, 9),
    (_as_bool, np.array([0, 1, 256, 2**40 + 1, 0, -1], dtype=np.int64), 1, 5),
    (_as_int64, np.arange(-40, 40, dtype=np.int8), 8, 40),
    (_as_int32, np.zeros(4, dtype=np.int64), 2, 2),  # empty
])
def test_view_as_reads_what_numpy_view_reads_and_shares_memory(view, source, start,
                                                               stop) -> None:
    seen = view(source, start, stop)
    expected = source[start:stop].view(seen.dtype)
    assert seen.dtype == expected.dtype and seen.shape == expected.shape
    assert seen.tolist() == expected.tolist()
    if len(seen):
        seen[-1] = seen[0]  # a view, not a copy: the source changes with it
        assert source[start:stop].view(seen.dtype)[-1] == seen[0]


def test_view_as_refuses_what_it_cannot_view() -> None:
    @numba.njit
    def two_d(a):  # type: ignore[no-untyped-def]
        return view_as(a, np.int32)

    with pytest.raises(numba.core.errors.TypingError):
        two_d(np.zeros((2, 2), np.int64))
