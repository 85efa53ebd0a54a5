"""The GPU-faithful interpreter's bf16 roundings (peconform/triton/bf16.py), with NumPy and torch
alone (no Triton: these run in CI on Debian's NumPy and torch 1.13), held bit for bit against
torch's bf16, which rounds to nearest even, and against exact rational arithmetic (exact_rounding.py), which is the
definition: one rounding of the exact value to nearest, ties to even. Every rounding tie is
constructed, and so is every case where a rounding in two steps would be wrong."""
from fractions import Fraction

import numpy as np
import pytest

from exact_rounding import exact_bits as exact_bf16_bits
from peconform.triton import bf16

torch = pytest.importorskip("torch", reason="torch's bfloat16 is one of the two references (Debian: python3-torch)")

RANDOM = np.random.default_rng(20261121)


def torch_bf16_bits(values):
    """torch's own rounding of float32 values to bf16 (round to nearest even on the bits)."""
    return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float32)).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)


def random_bf16(count, finite=True):
    """bf16 values over every exponent (as float32), from random bit patterns."""
    bits = RANDOM.integers(0, 1 << 16, count, dtype=np.uint32).astype(np.uint16)
    values = bf16.widen(bits)
    return values[np.isfinite(values)] if finite else values


def midpoints(count):
    """Exact bf16 ties: float32 values halfway between two bf16 neighbours, half with an even
    lower neighbour, half with an odd one, normal and subnormal."""
    upper = RANDOM.integers(0, 0x7F7F, count, dtype=np.uint32)
    return ((upper << 16) | 0x8000).view(np.float32)


def test_widening_holds_every_bf16_bit_pattern_exactly():
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    ours = bf16.widen(every)
    theirs = torch.from_numpy(every.view(np.int16)).view(torch.bfloat16).to(torch.float32).numpy()
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(ours[~nan].view(np.uint32), theirs[~nan].view(np.uint32))


def test_float32_rounds_to_nearest_even_as_torch_does_over_random_bits_and_every_kind_of_tie():
    random_bits = RANDOM.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32).view(np.float32)
    ties = midpoints(1 << 16)
    near_overflow = np.array([3.3895314e38, 3.3961776e38, 3.4028235e38, np.inf, -np.inf], dtype=np.float32)
    values = np.concatenate([random_bits, ties, -ties, near_overflow])
    finite_or_inf = ~np.isnan(values)
    assert np.array_equal(bf16.from_float32(values)[finite_or_inf], torch_bf16_bits(values)[finite_or_inf])
    assert np.isnan(bf16.widen(bf16.from_float32(values[~finite_or_inf]))).all()
    # The ties really are ties: half of them round down to an even neighbour, half up.
    rounded_up = bf16.from_float32(ties) != (ties.view(np.uint32) >> 16)
    assert 0.4 < rounded_up.mean() < 0.6


def test_float32_truncates_toward_zero():
    values = np.concatenate([RANDOM.integers(0, 1 << 32, 1 << 16, dtype=np.uint64).astype(np.uint32).view(np.float32), midpoints(4096)])
    values = values[~np.isnan(values)]
    # Independently: torch's nearest, stepped back one bf16 toward zero where it rounded away.
    nearest = torch_bf16_bits(values)
    away = np.abs(bf16.widen(nearest).astype(np.float64)) > np.abs(values.astype(np.float64))
    expected = np.where(away, nearest - 1, nearest).astype(np.uint16)
    assert np.array_equal(bf16.truncate_float32(values), expected)


def near_float64_ties(count):
    """float64 values a hair (2^-30 to 2^-60 of their size) off a bf16 tie, both sides, and the
    ties themselves: rounding such a value to float32 first makes it a tie and rounds it wrongly."""
    ties = midpoints(count).astype(np.float64)
    hair = ties * np.ldexp(1.0, RANDOM.integers(-60, -30, count))
    return np.concatenate([ties, ties + hair, ties - hair, -(ties + hair)])


def test_float64_rounds_once_to_nearest_even_where_a_float32_detour_would_not():
    values = np.concatenate([near_float64_ties(4096), RANDOM.standard_normal(4096) * np.ldexp(1.0, RANDOM.integers(-140, 128, 4096)),
                             [2.0**-134, 2.0**-134 * (1 + 2.0**-40), 2.0**-135, 3.3961775292304e38, 3.3961775292305e38, 1e300, -1e300]])
    expected = np.array([exact_bf16_bits(v, negative_zero=np.signbit(v)) for v in values], dtype=np.uint16)
    assert np.array_equal(bf16.from_float64(values), expected)
    # The inputs reach the case that needs rounding to odd: via float32 many would come out wrong.
    with np.errstate(over="ignore"):
        detour = bf16.from_float32(values.astype(np.float32))
    assert (detour != expected).sum() > 1000


def test_sums_round_once_to_nearest_even_as_torch_adds():
    a = random_bf16(40000)
    b = random_bf16(len(a) + 1000)[:len(a)]
    # Operands a few exponents apart too, so that many sums round (random exponents are mostly far apart).
    with np.errstate(over="ignore"):
        close = bf16.widen(bf16.from_float32(a * np.float32(3.0)**RANDOM.integers(-3, 4, len(a)).astype(np.float32)))
    finite = np.isfinite(close)
    a, b, close = a[finite], b[finite], close[finite]
    for x, y in ((a, b), (a, close), (a, -close)):
        theirs = (torch.from_numpy(x).to(torch.bfloat16) + torch.from_numpy(y).to(torch.bfloat16)).view(torch.int16).numpy().view(np.uint16)
        assert np.array_equal(bf16.from_exact_sum(x, y), theirs)
    expected = [exact_bf16_bits(Fraction(float(x)) + Fraction(float(y)), negative_zero=np.signbit(x) and np.signbit(y))
                for x, y in zip(a[:3000], close[:3000])]
    assert np.array_equal(bf16.from_exact_sum(a[:3000], close[:3000]), np.array(expected, dtype=np.uint16))


def test_products_round_once_to_nearest_even_subnormal_results_included():
    a = random_bf16(20000)
    b = random_bf16(len(a) + 1000)[:len(a)]
    # Products in bf16's subnormal range too, which the reference rounds on its fixed grid of 2^-133.
    small = bf16.widen(bf16.from_float32(np.abs(a) * np.float32(2.0**-60) + np.float32(2.0**-70)))
    for x, y in ((a, b), (small, small)):
        expected = [exact_bf16_bits(Fraction(float(u)) * Fraction(float(v)), negative_zero=np.signbit(u) != np.signbit(v))
                    for u, v in zip(x[:4000], y[:4000])]
        assert np.array_equal(bf16.from_product(x[:4000], y[:4000]), np.array(expected, dtype=np.uint16))
    products = a.astype(np.float64) * b.astype(np.float64)
    normal = np.isfinite(products) & (np.abs(products) >= 2.0**-126) & (np.abs(products) < 2.0**128)
    theirs = (torch.from_numpy(a).to(torch.bfloat16) * torch.from_numpy(b).to(torch.bfloat16)).view(torch.int16).numpy().view(np.uint16)
    assert np.array_equal(bf16.from_product(a, b)[normal], theirs[normal])


def test_fma_rounds_once_even_when_the_product_is_a_tie_and_the_addend_is_tiny():
    # a * b exactly halfway between two bf16 values (about 1 product in 2^8 is), c far too small
    # to show in float64 beside it: one rounding of a * b + c goes c's way; rounding the float64
    # sum instead ties to even, wrongly half the time.
    a = bf16.widen(RANDOM.integers(0x3F80, 0x4000, 1 << 20, dtype=np.uint32).astype(np.uint16))
    b = bf16.widen(RANDOM.integers(0x3F80, 0x4000, 1 << 20, dtype=np.uint32).astype(np.uint16))
    products = a.astype(np.float64) * b.astype(np.float64)
    tie = bf16.from_float64(np.nextafter(products, np.inf)) != bf16.from_float64(np.nextafter(products, -np.inf))
    a, b, products = a[tie][:4096], b[tie][:4096], products[tie][:4096]
    count = len(products)
    c = bf16.widen(bf16.from_float64(np.where(RANDOM.random(count) < 0.5, 1.0, -1.0) * np.ldexp(1.0, RANDOM.integers(-126, -60, count))))
    expected = np.array([exact_bf16_bits(Fraction(p) + Fraction(float(z))) for p, z in zip(products, c)], dtype=np.uint16)
    assert np.array_equal(bf16.from_fma(a, b, c), expected)
    in_float64 = bf16.from_float64(products + c.astype(np.float64))
    assert (in_float64 != expected).sum() > count // 4, "the inputs reach the ties that a float64 sum rounds wrongly"
    # And over random operands of every exponent.
    x, y, z = random_bf16(6000)[:5000], random_bf16(6000)[:5000], random_bf16(6000)[:5000]
    expected = [exact_bf16_bits(Fraction(float(u)) * Fraction(float(v)) + Fraction(float(w))) for u, v, w in zip(x, y, z)]
    assert np.array_equal(bf16.from_fma(x, y, z), np.array(expected, dtype=np.uint16))
