"""`tilec.random`: counter-based random numbers (Philox-4x32-10), docs/dsl.md "Random numbers".

Every function takes `seed` and `offset` (Python ints or run-time int arguments, 64 bits each)
and a shape (ints or entries of `x.shape`); the same (seed, offset, shape) gives the same bits in
the interpreter, C, PTX and HIP. Element i of a tile that uses k words per element reads words
k * i .. k * i + k - 1 of the stream, word w being word w % 4 of the Philox counter offset + w // 4:
a call consumes ceil(k * size / 4) counters, so the next call's offset is offset + that.
"""

from tilec.frontend.ops import random_bernoulli as bernoulli
from tilec.frontend.ops import random_bits as bits
from tilec.frontend.ops import random_normal as normal
from tilec.frontend.ops import random_uniform as uniform

__all__ = ["bernoulli", "bits", "normal", "uniform"]
