"""Plain calls through the generated shim: result types, keyword arguments, struct
arrays, and that calls release the GIL."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import load_cached

SOURCE = r"""
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
/* Spins until flag[0] becomes nonzero (set by another thread), at most `limit`
 * iterations; returns 1 if it saw the flag. */
int wait_for_flag(volatile const int *flag, long limit) {
    for (long i = 0; i < limit; i++)
        if (flag[0]) return 1;
    return 0;
}
void set_flag(int *flag) { flag[0] = 1; }
bool is_positive(float v) { return v > 0; }
uint64_t total(const uint8_t *bytes, size_t n) {
    uint64_t t = 0;
    for (size_t i = 0; i < n; i++) t += bytes[i];
    return t;
}
int16_t negate(int16_t v) { return -v; }
float halve(float v) { return v / 2; }
"""


@pytest.fixture(scope="module")
def lib(enzc_cache):
    return load_cached(enzc_cache, SOURCE)


def test_calls_release_the_gil(lib):
    """While one thread is inside C, another thread's Python code (and C call) runs."""
    flag = np.zeros(1, np.int32)
    seen = []
    waiter = threading.Thread(target=lambda: seen.append(lib.wait_for_flag(flag, 10**11)))
    waiter.start()
    while waiter.is_alive() and not flag[0]:
        lib.set_flag(flag)  # only reachable while the waiter's call has dropped the GIL
    waiter.join(timeout=120)
    assert seen == [1]


def test_result_types(lib):
    assert lib.is_positive(2.5) is True and lib.is_positive(-1) is False
    assert lib.total(np.arange(10, dtype=np.uint8), 10) == 45
    assert lib.negate(7) == -7
    with pytest.raises(OverflowError, match="'v'"):
        lib.negate(40000)
    assert lib.halve(3.0) == 1.5
    assert lib.set_flag(np.zeros(1, np.int32)) is None


def test_functions_and_repr(lib):
    assert set(lib.functions) == {"wait_for_flag", "set_flag", "is_positive", "total",
                                  "negate", "halve"}
    assert "uint64_t total(const uint8_t *bytes, size_t n)" in repr(lib.total) or \
        "total(const uint8_t *bytes, size_t n)" in repr(lib.total)
    assert "wait_for_flag" in dir(lib)
