"""grader/core/arrays.py: np.unique by sorting gives np.unique's answer (values, order, dtype) on the integer arrays
the interpreter's evidence holds: element indices, region owners, empty and one-element stores, repeats."""
import numpy as np
import pytest

from grader.core.arrays import distinct_count, unique


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.int8])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 1100, 8192])
def test_unique_is_np_unique(dtype, n):
    rng = np.random.default_rng(n)
    for high in (1, 3, 1000, 10**6):
        a = rng.integers(0, min(high, np.iinfo(dtype).max), n).astype(dtype)
        expected = np.unique(a)
        got = unique(a)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
        assert distinct_count(a) == expected.size


def test_negative_owners_and_a_2d_array_flatten_as_np_unique_does():
    a = np.array([[3, -1, 3], [-1, 0, 2]])
    assert np.array_equal(unique(a), np.unique(a)) and distinct_count(a) == 4


def test_a_sorted_run_without_repeats_is_itself():
    a = np.arange(5, 500, 3)
    assert np.array_equal(unique(a), a) and distinct_count(a) == a.size
    assert distinct_count(np.concatenate([a, a])) == a.size  # a program that stored the same elements twice
