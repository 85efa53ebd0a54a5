"""The reference for the GPU-faithful interpreter's tests: one rounding of an exact rational to a
16-bit float format, by integer arithmetic from the definition (IEEE 754-2019, 4.3), sharing
nothing with peconform/triton/bf16.py or the interpreter."""
from fractions import Fraction

# significand bits (the leading one included) and the largest exponent; the smallest normal
# exponent is 1 - the largest
FORMATS = {"bf16": (8, 127), "fp16": (11, 15)}


def exact_bits(value, format="bf16", toward_zero=False, negative_zero=False):
    """The bit pattern of `value` (an int, float or Fraction) rounded once to `format`: to nearest,
    ties to even, or toward zero. A zero value takes the sign `negative_zero` says."""
    precision, max_exponent = FORMATS[format]
    mantissa_bits = precision - 1
    q = Fraction(value)
    sign = 0x8000 if q < 0 or (q == 0 and negative_zero) else 0
    magnitude = abs(q)
    if magnitude == 0:
        return sign
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2)**exponent > magnitude:
        exponent -= 1
    exponent = max(exponent, 1 - max_exponent)  # below the normal range, one fixed grid
    quantum = Fraction(2)**(exponent - mantissa_bits)
    steps, remainder = divmod(magnitude, quantum)
    if not toward_zero and (remainder > quantum / 2 or (remainder == quantum / 2 and steps % 2 == 1)):
        steps += 1
    if steps == 1 << precision:  # rounded up to the next power of two
        steps, exponent = steps >> 1, exponent + 1
    exponent_ones = (1 << (15 - mantissa_bits)) - 1
    if exponent > max_exponent:  # to nearest, infinity; toward zero, the largest finite value
        return sign | ((exponent_ones << mantissa_bits) - 1 if toward_zero else exponent_ones << mantissa_bits)
    exponent_field = exponent + max_exponent if steps >> mantissa_bits else 0
    return sign | (exponent_field << mantissa_bits) | (steps & ((1 << mantissa_bits) - 1))
