"""Our own f64 math library, for targets without one (PTX: no libdevice).

Each function is written once, against a small builder interface (`Builder`): `IrBuilder`
emits arith/math ops (the PTX lowering, mapped_to_hw_nv.py), `NumpyBuilder` (mathlib_numpy.py) runs the
same algorithm on float64 numpy arrays (tests and benchmarks/math_accuracy.py measure the GPU
algorithm on the CPU with it). f32 (and f16/bf16, computed in f32) inputs are evaluated in
f64 and rounded once: within 1 ulp in f32 by construction (NOTES.md, 2026-12-02).

Algorithms (fdlibm's structure, Taylor polynomials instead of minimax ones):
- exp family: x = k ln2 + r (Cody-Waite, |r| <= ln2/2), e^r - 1 by a degree-13 Taylor polynomial,
  scaled by 2^k in two exact steps (subnormal results, overflow to inf);
- log family: x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1);
  log1p adds the rounding error of 1 + x back (c / u);
- sin/cos/tan: x = k pi/2 + r with pi/2 in four 24-bit parts and a fifth (exact products for
  |k| < 2^29: |x| <= 8.05e8 = 1.5 2^29; NaN beyond, where the reduction would be inexact: no
  Payne-Hanek reduction yet);
- atan family: |t| <= 1, atan t = pi/6 + atan((t sqrt3 - 1)/(t + sqrt3)) above tan(pi/12),
  Taylor series below; atan2/asin/acos from it; the hyperbolic ones from exp/expm1/log/log1p.
"""

from __future__ import annotations

import decimal
import math as pymath
from collections.abc import Callable
from fractions import Fraction

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import f64, i64
from xdsl.ir import Operation, SSAValue

# pi to 120 digits (the reduction constants are exact binary splits of it)
_PI = Fraction(
    "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230665"
)
_CTX = decimal.Context(prec=60)
_LN2 = Fraction(_CTX.ln(decimal.Decimal(2)))
_LOG10_2 = Fraction(_CTX.log10(decimal.Decimal(2)))


def _split(value: Fraction, bits: int, parts: int) -> tuple[float, ...]:
    """`value` as `parts` floats of `bits` significant bits each (the last one: 53 bits)."""
    out = []
    rest = value
    for i in range(parts):
        if i == parts - 1 or rest == 0:
            out.append(float(rest))
            break
        e = pymath.frexp(float(rest))[1]
        scale = Fraction(2) ** (bits - e)
        chunk = Fraction(int(rest * scale), 1) / scale  # truncated to `bits` bits
        out.append(float(chunk))
        rest -= chunk
    return tuple(out)


LN2_HI, LN2_LO = _split(_LN2, 32, 2)
PIO2_PARTS = _split(_PI / 2, 24, 5)
PI_HI, PI_LO = float(_PI), float(_PI - Fraction(float(_PI)))
PIO2_HI, PIO2_LO = float(_PI / 2), float(_PI / 2 - Fraction(float(_PI / 2)))
PI_6 = float(_PI / 6)
LOG2E = 1.4426950408889634
LOG10E = 0.4342944819032518
LOG10_2_HI, LOG10_2_LO = _split(_LOG10_2, 32, 2)
SQRT2 = 1.4142135623730951
SQRT3 = 1.7320508075688772
TAN_PI_12 = 0.2679491924311227
TWO_OVER_PI = float(2 / _PI)
TRIG_LIMIT = 2.0**29 * 1.5  # |k| < 2^29: k times a 24-bit part of pi/2 is exact
TINY = 2.0**-27  # below it, f(x) = x to 0.5 ulp for sin tan asin atan sinh asinh atanh
EXPM1_C = tuple(1.0 / pymath.factorial(n) for n in range(2, 14))  # e^r - 1 = r + r^2 (1/2 + r/6 + ...)
SIN_C = tuple((-1) ** i / pymath.factorial(2 * i + 1) for i in range(1, 9))
COS_C = tuple((-1) ** i / pymath.factorial(2 * i) for i in range(2, 9))
LOG_C = tuple(2.0 / (2 * j + 1) for j in range(1, 11))
ATAN_C = tuple((-1) ** j / (2 * j + 1) for j in range(1, 16))
TWO_OVER_SQRT_PI = 1.1283791670955126
INV_SQRT_PI = 0.5641895835477563
ERF_MACLAURIN = tuple(float(Fraction((-1) ** n, pymath.factorial(n) * (2 * n + 1))) for n in range(16))
ERFC_LEVELS = 20


def _bernoulli(n: int) -> list[Fraction]:
    """B_0 .. B_n (B_1 = -1/2), from sum_k C(m+1, k) B_k = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(pymath.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


_B = _bernoulli(40)
TANH_C = tuple(
    float(Fraction(4**n * (4**n - 1)) * _B[2 * n] / pymath.factorial(2 * n)) for n in range(2, 20)
)  # tanh x = x + x^3 (c_0 + x^2 (c_1 + ...)): the Taylor series from x^3, to |x| = 0.55
ERF_CENTERS = (0.75, 1.25, 1.75, 2.25, 2.75)
"""erf on [0.5, 3) is a Taylor series around the nearest center (|h| <= 1/4), its terms from
Hermite polynomials: d^n/dx^n erf(x) = 2/sqrt(pi) (-1)^(n-1) H_(n-1)(x) e^(-x^2)."""
ERF_TERMS = 26


def _erf_taylor(c: Fraction) -> tuple[float, float, tuple[float, ...]]:
    """(erf(c) as hi + lo, the Taylor coefficients of erf(c + h) - erf(c) in h, from h^1)."""
    ctx = decimal.Context(prec=60)
    dc = decimal.Decimal(c.numerator) / decimal.Decimal(c.denominator)
    sq = ctx.multiply(dc, dc)
    two_over_sqrt_pi = 2 / ctx.sqrt(decimal.Decimal(_PI.numerator) / decimal.Decimal(_PI.denominator))
    term, total, n = dc, decimal.Decimal(0), 0  # Maclaurin: sum (-1)^n c^(2n+1) / (n! (2n+1))
    while n < 200:
        total += term / (2 * n + 1)
        n += 1
        term = -term * sq / n
    erf_c = Fraction(two_over_sqrt_pi * total)
    hi = float(erf_c)
    scale = Fraction(two_over_sqrt_pi * ctx.exp(-sq))
    herm = [Fraction(1), 2 * c]  # H_0, H_1; H_(n+1) = 2c H_n - 2n H_(n-1)
    while len(herm) < ERF_TERMS:
        k = len(herm) - 1
        herm.append(2 * c * herm[k] - 2 * k * herm[k - 1])
    coefs = tuple(float(scale * (-1) ** (n - 1) * herm[n - 1] / pymath.factorial(n)) for n in range(1, ERF_TERMS + 1))
    return hi, float(erf_c - Fraction(hi)), coefs


ERF_TAYLOR = tuple(_erf_taylor(Fraction(c)) for c in ERF_CENTERS)


class Builder:
    """What an algorithm may use. Values are backend values (an SSAValue, a numpy array); the
    float operations are f64, the integer ones i64, conditions are booleans."""

    def const(self, v: float): ...
    def add(self, a, b): ...
    def sub(self, a, b): ...
    def mul(self, a, b): ...
    def div(self, a, b): ...
    def neg(self, a): ...
    def abs(self, a): ...
    def sqrt(self, a): ...
    def rint(self, a): ...  # round half to even
    def cmp(self, pred: str, a, b): ...  # "olt", "ogt", "oeq", "uno", ... (arith.cmpf names)
    def select(self, c, a, b): ...
    def both(self, c, d): ...  # c and d
    def either(self, c, d): ...  # c or d
    def to_int(self, a): ...  # f64 (integer-valued, |a| < 2^62) -> i64
    def bits(self, a): ...  # f64 -> i64, the same bits
    def from_bits(self, i): ...
    def iconst(self, v: int): ...
    def iadd(self, a, b): ...
    def isub(self, a, b): ...
    def iand(self, a, b): ...
    def ior(self, a, b): ...
    def ishl(self, a, n: int): ...
    def ishr(self, a, n: int): ...  # arithmetic
    def icmp(self, pred: str, a, b): ...  # "slt", "eq", ...
    def itof(self, a): ...  # i64 -> f64


class V:
    """A float value of a `Builder`, with operators (a small expression language)."""

    __slots__ = ("b", "v")

    def __init__(self, b: Builder, v) -> None:
        self.b, self.v = b, v

    def _o(self, o) -> object:
        return o.v if isinstance(o, V) else self.b.const(float(o))

    def __add__(self, o):
        return V(self.b, self.b.add(self.v, self._o(o)))

    def __radd__(self, o):
        return V(self.b, self.b.add(self._o(o), self.v))

    def __sub__(self, o):
        return V(self.b, self.b.sub(self.v, self._o(o)))

    def __rsub__(self, o):
        return V(self.b, self.b.sub(self._o(o), self.v))

    def __mul__(self, o):
        return V(self.b, self.b.mul(self.v, self._o(o)))

    def __rmul__(self, o):
        return V(self.b, self.b.mul(self._o(o), self.v))

    def __truediv__(self, o):
        return V(self.b, self.b.div(self.v, self._o(o)))

    def __rtruediv__(self, o):
        return V(self.b, self.b.div(self._o(o), self.v))

    def __neg__(self):
        return V(self.b, self.b.neg(self.v))

    def __abs__(self):
        return V(self.b, self.b.abs(self.v))

    def __lt__(self, o):
        return self.b.cmp("olt", self.v, self._o(o))

    def __le__(self, o):
        return self.b.cmp("ole", self.v, self._o(o))

    def __gt__(self, o):
        return self.b.cmp("ogt", self.v, self._o(o))

    def __ge__(self, o):
        return self.b.cmp("oge", self.v, self._o(o))

    def eq(self, o):
        return self.b.cmp("oeq", self.v, self._o(o))

    def isnan(self):
        return self.b.cmp("uno", self.v, self.v)

    def sqrt(self):
        return V(self.b, self.b.sqrt(self.v))

    def rint(self):
        return V(self.b, self.b.rint(self.v))

    def signbit(self):
        return self.b.icmp("slt", self.b.bits(self.v), self.b.iconst(0))


def _c(like: V, v: float) -> V:
    """The constant v (of the builder of `like`)."""
    return V(like.b, like.b.const(v))


def sel(c, a: V, b) -> V:
    return V(a.b, a.b.select(c, a.v, a._o(b)))


def horner(x: V, coefs: tuple[float, ...]) -> V:
    """coefs[0] + x (coefs[1] + x (...))."""
    p = _c(x, coefs[-1])
    for c in reversed(coefs[:-1]):
        p = p * x + c
    return p


# --- exp ------------------------------------------------------------------------------------------


def _pow2(x: V, ki) -> V:
    """2^k for an i64 k in [-1022, 1023]: built from its bits."""
    b = x.b
    return V(b, b.from_bits(b.ishl(b.iadd(ki, b.iconst(1023)), 52)))


def _scale(y: V, k: V) -> V:
    """y 2^k for an integer-valued k in [-2000, 2000] (two exact steps: no overflow of 2^k)."""
    b = y.b
    ki = b.to_int(k.v)
    k1 = b.ishr(ki, 1)
    k2 = b.isub(ki, k1)
    return y * _pow2(y, k1) * _pow2(y, k2)


def _clamp(x: V, lo: float, hi: float) -> V:
    return sel(x > hi, _c(x, hi), sel(x < lo, _c(x, lo), x))


def _exp_reduce(x: V) -> tuple[V, V]:
    """(k, r): x = k ln2 + r, |r| <= ln2/2 (x clamped to +-1400: inf -> overflow/underflow)."""
    xc = _clamp(x, -1400.0, 1400.0)
    k = (xc * LOG2E).rint()
    r = (xc - k * LN2_HI) - k * LN2_LO
    return k, r


def _expm1_poly(r: V) -> V:
    return r + r * r * horner(r, EXPM1_C)


def _nan_through(x: V, y: V) -> V:
    return sel(x.isnan(), x, y)


def exp(x: V) -> V:
    k, r = _exp_reduce(x)
    return _nan_through(x, _scale(_expm1_poly(r) + 1.0, k))


def exp2(x: V) -> V:
    xc = _clamp(x, -1400.0, 1400.0)
    k = xc.rint()
    f = xc - k
    r = f * LN2_HI + f * LN2_LO
    return _nan_through(x, _scale(_expm1_poly(r) + 1.0, k))


def expm1(x: V) -> V:
    k, r = _exp_reduce(x)
    em = _expm1_poly(r)
    big = _scale(em + 1.0, k)
    t = _scale(_c(x, 1.0), _clamp(k, -60.0, 60.0))
    mid = t * em + (t - 1.0)
    y = sel(k > 56.0, big, sel(k < -56.0, _c(x, -1.0), mid))
    return sel(abs(x) < 2.0**-54, x, _nan_through(x, y))


# --- log ------------------------------------------------------------------------------------------


def _log_parts(x: V) -> tuple[V, V]:
    """(e, log m) with x = 2^e m, m in [sqrt(1/2), sqrt(2)), for finite x > 0."""
    b = x.b
    sub = x < 2.0**-1022
    xs = sel(sub, x * 2.0**54, x)
    bits = b.bits(xs.v)
    ei = b.isub(b.ishr(bits, 52), b.iconst(1023))
    m = V(b, b.from_bits(b.ior(b.iand(bits, b.iconst((1 << 52) - 1)), b.iconst(1023 << 52))))
    e = V(b, b.itof(ei)) - sel(sub, _c(x, 54.0), 0.0)
    hi = m > SQRT2
    m = sel(hi, m * 0.5, m)
    e = sel(hi, e + 1.0, e)
    f = m - 1.0
    s = f / (f + 2.0)
    z = s * s
    r = z * horner(z, LOG_C)
    hfsq = 0.5 * f * f
    return e, f - (hfsq - s * (hfsq + r))


def _log_specials(x: V, y: V) -> V:
    """log-like results at 0 (-inf), < 0 (nan), +inf (inf) and nan."""
    inf = _c(x, pymath.inf)
    y = sel(x.eq(pymath.inf), inf, y)
    y = sel(x.eq(0.0), -inf, y)
    return sel(x < 0.0, _c(x, pymath.nan), _nan_through(x, y))


def log(x: V) -> V:
    e, lm = _log_parts(x)
    return _log_specials(x, e * LN2_HI + (lm + e * LN2_LO))


def log2(x: V) -> V:
    e, lm = _log_parts(x)
    return _log_specials(x, e + lm * LOG2E)


def log10(x: V) -> V:
    e, lm = _log_parts(x)
    return _log_specials(x, e * LOG10_2_HI + (e * LOG10_2_LO + lm * LOG10E))


def log1p(x: V) -> V:
    u = x + 1.0
    small = abs(x) <= 1.0
    c = sel(small, x - (u - 1.0), 1.0 - (u - x))  # the rounding error of 1 + x (Fast2Sum)
    y = log(u) + c / u
    y = sel(u.eq(1.0), x, y)
    y = sel(x.eq(-1.0), _c(x, -pymath.inf), y)
    y = sel(x.eq(pymath.inf), x, y)
    return sel(x < -1.0, _c(x, pymath.nan), _nan_through(x, y))


# --- trigonometric ----------------------------------------------------------------------------------


def _trig_reduce(x: V) -> tuple[V, object]:
    """(r, q): x = k pi/2 + r, q = k mod 4 (an i64)."""
    b = x.b
    k = (_clamp(x, -1e18, 1e18) * TWO_OVER_PI).rint()
    r = x
    for p in PIO2_PARTS:
        r = r - k * p
    q = b.iand(b.to_int(k.v), b.iconst(3))
    r = sel(abs(x) > TRIG_LIMIT, _c(x, pymath.nan), r)  # beyond it the reduction is inexact
    return r, q


def _sin_poly(r: V) -> V:
    z = r * r
    return r + r * z * horner(z, SIN_C)


def _cos_poly(r: V) -> V:
    z = r * r
    return 1.0 - 0.5 * z + z * z * horner(z, COS_C)


def _is_q(b: Builder, q, n: int):
    return b.icmp("eq", q, b.iconst(n))


def sin(x: V) -> V:
    b = x.b
    r, q = _trig_reduce(x)
    s, c = _sin_poly(r), _cos_poly(r)
    odd = _is_q(b, b.iand(q, b.iconst(1)), 1)
    y = sel(odd, c, s)
    y = sel(_is_q(b, b.iand(q, b.iconst(2)), 2), -y, y)
    return sel(abs(x) < TINY, x, y)


def cos(x: V) -> V:
    b = x.b
    r, q = _trig_reduce(x)
    s, c = _sin_poly(r), _cos_poly(r)
    odd = _is_q(b, b.iand(q, b.iconst(1)), 1)
    y = sel(odd, s, c)
    neg = b.either(_is_q(b, q, 1), _is_q(b, q, 2))
    return sel(neg, -y, y)


def tan(x: V) -> V:
    b = x.b
    r, q = _trig_reduce(x)
    s, c = _sin_poly(r), _cos_poly(r)
    odd = _is_q(b, b.iand(q, b.iconst(1)), 1)
    y = sel(odd, -c / s, s / c)
    return sel(abs(x) < TINY, x, y)


def _atan01(t: V) -> V:
    """atan t for t in [0, 1] (or NaN)."""
    big = t > TAN_PI_12
    u = sel(big, (t * SQRT3 - 1.0) / (t + SQRT3), t)
    p = u + u * (u * u) * horner(u * u, ATAN_C)
    return sel(big, p + PI_6, p)


def _pio2_minus(r: V) -> V:
    return (PIO2_HI - r) + PIO2_LO


def atan(x: V) -> V:
    a = abs(x)
    inv = a > 1.0
    t = sel(inv, 1.0 / a, a)
    r = _atan01(t)
    r = sel(inv, _pio2_minus(r), r)
    y = sel(x < 0.0, -r, r)
    return sel(a < TINY, x, _nan_through(x, y))


def _atan2_abs(ay: V, x: V) -> V:
    """atan2(ay, x) for ay >= 0 (or NaN): in [0, pi]."""
    b = x.b
    ax = abs(x)
    swap = ay > ax
    num, den = sel(swap, ax, ay), sel(swap, ay, ax)
    t = num / den
    t = sel(b.both(ax.eq(pymath.inf), ay.eq(pymath.inf)), _c(x, 1.0), t)
    t = sel(b.both(ax.eq(0.0), ay.eq(0.0)), _c(x, 0.0), t)
    a = _atan01(t)
    neg = x.signbit()
    r = sel(neg, (PI_HI - a) + PI_LO, a)
    r = sel(swap, sel(neg, (PIO2_HI + a) + PIO2_LO, _pio2_minus(a)), r)
    return sel(b.either(x.isnan(), ay.isnan()), x + ay, r)


def atan2(y: V, x: V) -> V:
    r = _atan2_abs(abs(y), x)
    return sel(y.signbit(), -r, r)


def asin(x: V) -> V:
    a = abs(x)
    s = ((1.0 - a) * (1.0 + a)).sqrt()
    swap = a > s
    t = sel(swap, s / a, a / s)
    r = _atan01(t)
    r = sel(swap, _pio2_minus(r), r)
    r = sel(a.eq(1.0), _c(x, PIO2_HI), r)
    y = sel(x < 0.0, -r, r)
    return sel(a < TINY, x, sel(a > 1.0, _c(x, pymath.nan), _nan_through(x, y)))


def acos(x: V) -> V:
    s = ((1.0 - x) * (1.0 + x)).sqrt()
    return sel(abs(x) > 1.0, _c(x, pymath.nan), _atan2_abs(s, x))


# --- hyperbolic -------------------------------------------------------------------------------------


def _copysign_pos(r: V, x: V) -> V:
    return sel(x < 0.0, -r, r)


def sinh(x: V) -> V:
    a = abs(x)
    em = expm1(a)
    small = 0.5 * (em + em / (em + 1.0))
    h = exp(0.5 * a)
    big = (0.5 * h) * h
    y = sel(a < 22.0, small, big)
    return sel(a < TINY, x, _nan_through(x, _copysign_pos(y, x)))


def cosh(x: V) -> V:
    a = abs(x)
    e = exp(a)
    small = 0.5 * (e + 1.0 / e)
    h = exp(0.5 * a)
    big = (0.5 * h) * h
    return _nan_through(x, sel(a < 22.0, small, big))


def asinh(x: V) -> V:
    a = abs(x)
    huge = log(a) + LN2_HI + LN2_LO
    mid = log(2.0 * a + 1.0 / ((a * a + 1.0).sqrt() + a))
    aa = a * a
    small = log1p(a + aa / (1.0 + (1.0 + aa).sqrt()))
    y = sel(a > 2.0**28, huge, sel(a > 2.0, mid, small))
    return sel(a < TINY, x, _nan_through(x, _copysign_pos(y, x)))


def acosh(x: V) -> V:
    huge = log(x) + LN2_HI + LN2_LO
    mid = log(2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt()))
    t = x - 1.0
    small = log1p(t + (2.0 * t + t * t).sqrt())
    y = sel(x > 2.0**28, huge, sel(x > 2.0, mid, small))
    return sel(x < 1.0, _c(x, pymath.nan), _nan_through(x, y))


def atanh(x: V) -> V:
    a = abs(x)
    small = 0.5 * log1p(2.0 * a + 2.0 * a * a / (1.0 - a))
    big = 0.5 * log1p(2.0 * a / (1.0 - a))
    y = sel(a < 0.5, small, big)
    y = sel(a > 1.0, _c(x, pymath.nan), y)
    return sel(a < TINY, x, _nan_through(x, _copysign_pos(y, x)))


def tanh(x: V) -> V:
    """For a = |x|: below 0.55 its Taylor series (within 1 ulp; the quotient below costs up to 3
    near 0.2); else (e^2a - 1) / (e^2a + 1) as expm1(2a) / (expm1(2a) + 2); 1 beyond 22 (tanh(22)
    rounds to 1)."""
    a = abs(x)
    em = expm1(2.0 * a)
    s = a * a
    y = sel(a < 0.55, a + a * s * horner(s, TANH_C), em / (em + 2.0))
    y = sel(a > 22.0, _c(x, 1.0), y)
    return sel(a < TINY, x, _nan_through(x, _copysign_pos(y, x)))


def _exp_neg_square(a: V) -> V:
    """e^(-a^2) for 0 <= a < 6 without the rounding of a^2 (which would cost up to 2 ulp at a = 3):
    a = h + l with h the top 26 bits, so h^2 and 2hl are exact; e^(-a^2) = e^(-h^2) e^(-d),
    d = 2hl + l^2 below 2^-24, e^(-d) = 1 - d + d^2 / 2 to 2^-72."""
    b = a.b
    h = V(b, b.from_bits(b.iand(b.bits(a.v), b.iconst(-(1 << 27)))))
    lo = a - h
    d = 2.0 * h * lo + lo * lo
    return exp(-(h * h)) * (1.0 - d + 0.5 * d * d)


def erf(x: V) -> V:
    """By |x| = a: below 0.5 the Maclaurin series 2/sqrt(pi) a sum (-a^2)^n / (n! (2n + 1));
    below 3 the Taylor series around the nearest of ERF_CENTERS (erf(c) in two parts, plus a
    correction below a sixth of it); below 6, 1 - erfc(a) with erfc(a) = e^(-a^2) / sqrt(pi) /
    (a + 1/2 / (a + 1 / (a + 3/2 / ...))) (the 20th convergent of the continued fraction, as
    P / Q: erfc to 2e-13, erf to 1e-17); beyond, 1 (erfc(5.93) is below half an ulp of 1)."""
    a = abs(x)
    s = a * a
    small = TWO_OVER_SQRT_PI * (a * horner(s, ERF_MACLAURIN))
    mid = _c(x, 0.0)
    for c, (hi, lo, coefs) in reversed(list(zip(ERF_CENTERS, ERF_TAYLOR))):
        h = a - c  # exact: a and c are within a factor of 2
        part = hi + (lo + h * horner(h, coefs))
        mid = sel(a < c + 0.25, part, mid)
    ac = sel(a < 3.0, _c(x, 3.0), _clamp(a, 3.0, 6.0))  # the fraction's range (no division by 0)
    p0, q0, p1, q1 = _c(x, 1.0), _c(x, 0.0), ac, _c(x, 1.0)  # convergents P / Q: one division
    for k in range(1, ERFC_LEVELS + 1):  # all terms positive: the recurrence cancels nothing
        p0, q0, p1, q1 = p1, q1, ac * p1 + 0.5 * k * p0, ac * q1 + 0.5 * k * q0
    big = 1.0 - _exp_neg_square(ac) * INV_SQRT_PI * q1 / p1
    y = sel(a < 0.5, small, sel(a < 3.0, mid, sel(a < 6.0, big, _c(x, 1.0))))
    return sel(a < TINY, TWO_OVER_SQRT_PI * x, _nan_through(x, _copysign_pos(y, x)))  # -0 keeps its sign


FUNCTIONS: dict[str, Callable[..., V]] = {
    "exp": exp,
    "exp2": exp2,
    "expm1": expm1,
    "log": log,
    "log2": log2,
    "log10": log10,
    "log1p": log1p,
    "sin": sin,
    "cos": cos,
    "tan": tan,
    "asin": asin,
    "acos": acos,
    "atan": atan,
    "atan2": atan2,
    "sinh": sinh,
    "cosh": cosh,
    "asinh": asinh,
    "acosh": acosh,
    "atanh": atanh,
    "tanh": tanh,
    "erf": erf,
}
"""The algorithms by name (the `ptx` column of tilec/mathfns.py): f(*V) -> V, all f64."""


# --- the IR backend -------------------------------------------------------------------------------


class IrBuilder(Builder):
    """The algorithms as arith / math ops on f64 and i64 scalars (`insert` places an op and returns
    its result; `const` makes a constant of a type)."""

    def __init__(self, insert: Callable[[Operation], SSAValue], const: Callable[[object, object], SSAValue]) -> None:
        self.insert, self.make_const = insert, const

    def const(self, v):
        return self.make_const(float(v), f64)

    def add(self, a, b):
        return self.insert(arith.AddfOp(a, b))

    def sub(self, a, b):
        return self.insert(arith.SubfOp(a, b))

    def mul(self, a, b):
        return self.insert(arith.MulfOp(a, b))

    def div(self, a, b):
        return self.insert(arith.DivfOp(a, b))

    def neg(self, a):
        return self.insert(arith.NegfOp(a))

    def abs(self, a):
        return self.insert(math.AbsFOp(a))

    def sqrt(self, a):
        return self.insert(math.SqrtOp(a))

    def rint(self, a):
        return self.insert(math.RoundEvenOp(a))

    def cmp(self, pred, a, b):
        return self.insert(arith.CmpfOp(a, b, pred))

    def select(self, c, a, b):
        return self.insert(arith.SelectOp(c, a, b))

    def both(self, c, d):
        return self.insert(arith.AndIOp(c, d))

    def either(self, c, d):
        return self.insert(arith.OrIOp(c, d))

    def to_int(self, a):
        return self.insert(arith.FPToSIOp(a, i64))

    def bits(self, a):
        return self.insert(arith.BitcastOp(a, i64))

    def from_bits(self, i):
        return self.insert(arith.BitcastOp(i, f64))

    def iconst(self, v):
        return self.make_const(int(v), i64)

    def iadd(self, a, b):
        return self.insert(arith.AddiOp(a, b))

    def isub(self, a, b):
        return self.insert(arith.SubiOp(a, b))

    def iand(self, a, b):
        return self.insert(arith.AndIOp(a, b))

    def ior(self, a, b):
        return self.insert(arith.OrIOp(a, b))

    def ishl(self, a, n):
        return self.insert(arith.ShLIOp(a, self.iconst(n)))

    def ishr(self, a, n):
        return self.insert(arith.ShRSIOp(a, self.iconst(n)))

    def icmp(self, pred, a, b):
        return self.insert(arith.CmpiOp(a, b, pred))

    def itof(self, a):
        return self.insert(arith.SIToFPOp(a, f64))


def emit(name: str, args: list[SSAValue], insert, const) -> SSAValue:
    """Algorithm `name` on f64 values, as ops placed by `insert`; the f64 result."""
    b = IrBuilder(insert, const)
    return FUNCTIONS[name](*[V(b, a) for a in args]).v


__all__ = ["FUNCTIONS", "Builder", "IrBuilder", "V", "emit"]
