"""The LLC model against pycachesim on the same traces: identical LRU hit
and miss counts (an independent reference implementation)."""

import pytest

from packetpath import _engine
from packetpath.peers import cache_vs_pycachesim, trace

pytest.importorskip("cachesim", reason="pycachesim is a test dependency (pip install .[test])")


@pytest.mark.parametrize(("sets", "ways"), [(64, 1), (256, 4), (2048, 11), (1024, 16)])
def test_identical_lru_counts(sets, ways):
    r = cache_vs_pycachesim(n=100_000, sets=sets, ways=ways, seed=sets + ways)
    assert r["identical"], r
    assert r["hits"] > 0 and r["misses"] > 0


def test_bad_geometry_is_refused():
    with pytest.raises(ValueError, match="power of two"):
        _engine.lru_trace(100, 4, trace(10, 100, 4))


def test_a_numpy_array_and_a_list_give_the_same_counts():
    import numpy as np

    lines = trace(20_000, 256, 4)
    array = np.asarray(lines, dtype=np.uint64)
    assert _engine.lru_trace(256, 4, lines)[:2] == _engine.lru_trace(256, 4, array)[:2]
    # a strided view is not read in place but copied, to the same counts
    assert _engine.lru_trace(256, 4, array[::2])[:2] == _engine.lru_trace(256, 4, lines[::2])[:2]
    # an address beyond the model is refused from a buffer too
    with pytest.raises(ValueError, match="beyond the modelled"):
        _engine.lru_trace(256, 4, np.array([1, 2**62], dtype=np.uint64))
