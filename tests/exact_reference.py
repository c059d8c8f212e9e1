#!/usr/bin/env python3
"""The correctly rounded sums of tests/test_exact.c's cases, computed apart
from pclreduce with Python's exact rationals (fractions.Fraction).

usage: exact_reference.py CASES.bin   prints one line per case: the result's
bits in hex (0x%08x for half and float elements, whose sums are floats;
0x%016x for double elements).

CASES.bin holds cases back to back, each: u32 element size (2 half, 4 float,
8 double), u64 n (little-endian), then n elements. The rules (IEEE 754, the
exact sum rounded once to nearest, ties to even): any NaN, or +inf together
with -inf, gives NaN (0x7fc00000 / 0x7ff8000000000000); otherwise an infinity
gives itself; an exact zero is +0; a sum beyond the largest finite value
after rounding gives an infinity of its sign.
"""
import math
import struct
import sys
from fractions import Fraction

# (struct code, precision in bits, smallest normal exponent, largest exponent, result bits)
FORMATS = {2: ("<e", 24, -126, 127, 32), 4: ("<f", 24, -126, 127, 32), 8: ("<d", 53, -1022, 1023, 64)}


def round_bits(q, mant, emin, emax, width):
    """The bits of the binary format nearest to the rational q (ties to even)."""
    sign = 1 if q < 0 else 0
    a = -q if q < 0 else q
    exp_bits = width - mant  # sign + exponent field
    bias = (1 << (exp_bits - 1)) - 1
    inf = ((1 << exp_bits) - 1) << (mant - 1)
    if a == 0:
        return 0  # +0
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2^e <= a < 2^(e+1) after the fix below
    if Fraction(2) ** e > a:
        e -= 1
    ulp = max(e - (mant - 1), emin - (mant - 1))
    scaled = a / Fraction(2) ** ulp
    kept = scaled.numerator // scaled.denominator
    rest = scaled - kept
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and kept % 2 == 1):
        kept += 1
    if kept == 1 << mant:  # the rounding carried into the next binade
        kept >>= 1
        ulp += 1
    if ulp > emax - (mant - 1):
        return sign << (width - 1) | inf
    if kept < 1 << (mant - 1):  # subnormal
        field, frac = 0, kept
    else:
        field, frac = ulp + (mant - 1) + bias, kept - (1 << (mant - 1))
    return sign << (width - 1) | field << (mant - 1) | frac


def exact_sum_bits(size, raw):
    code, mant, emin, emax, width = FORMATS[size]
    n = len(raw) // size
    nan = inf_pos = inf_neg = False
    scale = 1074  # every finite half, float and double is a whole multiple of 2^-1074
    total = 0
    for (x,) in struct.iter_unpack(code, raw[: n * size]):
        if math.isnan(x):
            nan = True
        elif math.isinf(x):
            inf_pos, inf_neg = inf_pos or x > 0, inf_neg or x < 0
        else:
            num, den = x.as_integer_ratio()  # exact: den is a power of two
            total += num * ((1 << scale) // den)
    if nan or (inf_pos and inf_neg):
        return (0x7FF8000000000000 if width == 64 else 0x7FC00000), width
    if inf_pos or inf_neg:
        inf = ((1 << (width - mant)) - 1) << (mant - 1)
        return (1 << (width - 1) if inf_neg else 0) | inf, width
    return round_bits(Fraction(total, 1 << scale), mant, emin, emax, width), width


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    pos = 0
    while pos < len(data):
        size, n = struct.unpack_from("<IQ", data, pos)
        pos += 12
        if size not in FORMATS or pos + n * size > len(data):
            sys.exit("exact_reference.py: malformed case at byte %d" % (pos - 12))
        bits, width = exact_sum_bits(size, data[pos : pos + n * size])
        pos += n * size
        print("0x%0*x" % (width // 4, bits))


if __name__ == "__main__":
    main()
