"""The reference Philox-4x32-10 against the Random123 known-answer vectors
(github.com/DEShawResearch/random123, tests/kat_vectors)."""

import numpy as np
import pytest

from tilec.philox import philox4x32

KAT = [
    ("00000000 00000000 00000000 00000000", "00000000 00000000", "6627e8d5 e169c58d bc57ac4c 9b00dbd8"),
    ("ffffffff ffffffff ffffffff ffffffff", "ffffffff ffffffff", "408f276d 41c83b0e a20bc7c6 6d5451fd"),
    ("243f6a88 85a308d3 13198a2e 03707344", "a4093822 299f31d0", "d16cfe09 94fdcceb 5001e420 24126ea1"),
]


def words(s):
    return [int(w, 16) for w in s.split()]


@pytest.mark.parametrize("ctr, key, out", KAT)
def test_known_answers(ctr, key, out):
    got = philox4x32(words(ctr), words(key))
    assert [int(g) for g in got] == words(out)


def test_arrays_give_the_scalar_answers_elementwise():
    rng = np.random.default_rng()
    ctr = rng.integers(0, 2**32, size=(4, 37), dtype=np.uint64).astype(np.uint32)
    key = [int(k) for k in rng.integers(0, 2**32, size=2)]
    vec = philox4x32(list(ctr), key)
    for j in (0, 1, 17, 36):
        one = philox4x32([int(c[j]) for c in ctr], key)
        assert [int(w[j]) for w in vec] == [int(w) for w in one]
