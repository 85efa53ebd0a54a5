"""bfloat16 roundings as NVIDIA's hardware does them, on NumPy arrays of bit patterns (uint16).

bf16 is the upper half of a float32, so a float32 rounds to it on its own bits. A float64, or the
exact sum of two float64 values, first rounds to odd (Boldo and Melquiond, "When double rounding
is odd", 2005): rounding to odd at a precision at least two bits wider than the target, then to
nearest even at the target, is one rounding to nearest even of the exact value. float64 keeps 53
bits and float32 24 (16 more than bf16's 8 even in float32's subnormal range, whose grid 2^-149
is 2^16 finer than bf16's 2^-133), so one float64 -> float32 -> bf16 chain serves every input.

These need NumPy alone: the GPU-faithful interpreter (gpu_faithful.py) computes with them, and
CI tests them against torch's bf16 and exact rational arithmetic without Triton.
"""
import numpy as np

# The quiet NaN that sm_90's bf16 conversions and arithmetic return (PTX ISA, "Floating point
# instructions": a canonical NaN); a NaN's payload is not carried.
CANONICAL_NAN = np.uint16(0x7FFF)


def widen(bits):
    """bf16 bit patterns -> the float32 values they hold (exact, subnormals included)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def from_float32(values):
    """float32 values -> bf16 bit patterns, rounded to nearest, ties to even (cvt.rn.bf16.f32)."""
    values = np.asarray(values, dtype=np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    # Adding 0x7FFF, plus 1 when the kept half is odd, carries into it exactly when the dropped
    # half is above one half, or is one half and the kept half is odd; a carry out of the
    # significand steps the exponent, and past the largest finite value reaches infinity.
    rounded = ((bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)).astype(np.uint16)
    return np.where(np.isnan(values), CANONICAL_NAN, rounded)


def truncate_float32(values):
    """float32 values -> bf16 bit patterns, rounded toward zero (cvt.rz.bf16.f32)."""
    values = np.asarray(values, dtype=np.float32)
    bits = (values.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(values), CANONICAL_NAN, bits)


def float32_round_to_odd(values):
    """float64 values -> float32, rounded to odd: exact values stay, inexact ones take the
    neighbour whose last significand bit is 1."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # past float32's range; a signalling NaN
        nearest = values.astype(np.float32)
    inexact = nearest.astype(np.float64) != values
    even = (nearest.view(np.uint32) & np.uint32(1)) == 0
    # Between two consecutive floats, the one on the far side from `nearest` is odd when it is even.
    toward = np.where(values > nearest.astype(np.float64), np.float32(np.inf), np.float32(-np.inf))
    step = inexact & even & ~np.isnan(values)
    return np.where(step, np.nextafter(nearest, toward), nearest)


def from_float64(values):
    """float64 values -> bf16 bit patterns, one rounding to nearest even (cvt.rn.bf16.f64)."""
    return from_float32(float32_round_to_odd(values))


def from_exact_sum(a, b):
    """The exact sum a + b of float64 values -> bf16 bit patterns, one rounding to nearest even.

    The sum rounds to float64, Knuth's TwoSum recovers what that rounding dropped, and its sign
    rounds the float64 sum to odd: a sum a bf16 tie away from the float64 one rounds the right way.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    total = a + b
    with np.errstate(invalid="ignore"):  # infinities make the error terms NaN; they are not used
        b_part = total - a
        dropped = (a - (total - b_part)) + (b - b_part)
    inexact = np.isfinite(total) & (dropped != 0)
    even = (total.view(np.uint64) & np.uint64(1)) == 0
    toward = np.where(dropped > 0, np.inf, -np.inf)
    odd_total = np.where(inexact & even, np.nextafter(total, toward), total)
    return from_float64(odd_total)


def from_product(a, b):
    """a * b of bf16 values (as float32 or float64) -> bf16 bits, one rounding to nearest even.
    Two 8-bit significands make at most 16 bits, and bf16's exponent range squared stays inside
    float64's normal range, so the float64 product is exact."""
    return from_float64(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64))


def from_fma(a, b, c):
    """fma(a, b, c) of bf16 values -> bf16 bits, one rounding of the exact a * b + c (fma.rn.bf16)."""
    return from_exact_sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64), c)
