"""peconform.reference and reference_digits against the formulas, evaluated with mpmath."""
import math

import mpmath
import numpy as np
import pytest

import peconform

SPEC = peconform.Spec("rope(d=4,base=10000,layout=half)")
X = [1.0, -0.5, 0.25, 2.0]


def rotated(position, digits):
    """RoPE, half layout: pair i is (x[i], x[i + d/2]) rotated by position * base^(-2i/d)."""
    mpmath.mp.dps = digits + 20
    out = [None] * 4
    for i in range(2):
        angle = position * mpmath.power(10000, mpmath.mpf(-2 * i) / 4)
        a, b = mpmath.mpf(X[i]), mpmath.mpf(X[i + 2])
        out[i] = a * mpmath.cos(angle) - b * mpmath.sin(angle)
        out[i + 2] = a * mpmath.sin(angle) + b * mpmath.cos(angle)
    return out


@pytest.mark.parametrize("tier", ["fast", "exact"])
def test_reference_is_the_rotation_rounded_to_double(tier):
    positions = [0, 1, 1000, 2**31 - 1]
    values = peconform.reference(SPEC, positions, x=X, tier=tier)
    assert values.dtype == np.float64 and values.shape == (4, 4)
    for row, position in zip(values, positions):
        assert list(row) == [float(v) for v in rotated(position, 30)]


def test_reference_digits_match_mpmath_to_the_last_digit():
    texts = peconform.reference_digits(SPEC, [123456789], x=X, digits=40)
    for text, value in zip(texts[0], rotated(123456789, 40)):
        mantissa = text.split("e")[0].lstrip("-").replace(".", "")
        assert len(mantissa) == 40
        last_digit = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(abs(value))) - 39)
        assert abs(mpmath.mpf(text) - value) <= last_digit / 2


def test_one_input_row_per_position_and_tables_without_input():
    rows = np.array([X, [0.0, 1.0, 0.0, 1.0]])
    values = peconform.reference(SPEC, [5, 5], x=rows)
    assert list(values[0]) == [float(v) for v in rotated(5, 30)]
    # Pair 0 is (x[0], x[2]) = (0, 0); pair 1, (1, 1), turns by 5 / 100.
    assert values[1][0] == 0.0
    assert values[1][1] == pytest.approx(math.cos(0.05) - math.sin(0.05), abs=1e-15)
    table = peconform.reference(peconform.Spec("sinusoidal(d=4)"), [0, 3])
    assert table.shape == (2, 4)
    # Interleaved by default: [sin, cos] per frequency, frequencies base^(-2k/d).
    assert list(table[1]) == [math.sin(3.0), math.cos(3.0), math.sin(3.0 / 100.0), math.cos(3.0 / 100.0)]


def test_bad_calls_name_what_was_expected():
    with pytest.raises(peconform.SpecError, match="needs x: 4 values"):
        peconform.reference(SPEC, [1])
    with pytest.raises(peconform.SpecError, match="4 values"):
        peconform.reference(SPEC, [1], x=[1.0, 2.0])
    with pytest.raises(peconform.SpecError, match="tier is 'slow'"):
        peconform.reference(SPEC, [1], x=X, tier="slow")
    with pytest.raises(peconform.SpecError, match="digits is 80"):
        peconform.reference_digits(SPEC, [1], x=X, digits=80)
    with pytest.raises(peconform.SpecError, match="rows of 2"):
        peconform.reference(peconform.Spec("t5(buckets=32,max_distance=128)"), [1, 2])
    with pytest.raises(TypeError, match="integers .* not float64"):  # never truncated to 1
        peconform.reference(SPEC, [1.5], x=X)
