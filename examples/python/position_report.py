"""Prints where along the positions a check's worst error stands against its bound, from the
report's per-position maxima (positions are binned by bit length: bin b is [2^(b-1), 2^b))."""


def bin_range(b):
    return "0" if b == 0 else f"[2^{b - 1}, 2^{b})"


def print_positions(result):
    for cell in result.cells:
        print(f"  {cell['backend']}/{cell['family']}/{cell['dtype']}/{cell['precision']}: worst error / bound by position")
        ratios = [float(r) for r in cell["worst_ratio_by_position"]]
        for b, ratio in enumerate(ratios):
            if ratio > 0:
                print(f"    positions {bin_range(b):>16}: {ratio:10.3g}{'  <- over its bound' if ratio > 1 else ''}")
        over = [b for b, ratio in enumerate(ratios) if ratio > 1]
        if over:
            print(f"  non-conformant from positions {bin_range(over[0])} on")


def first_bin_over(result):
    """The first position bin whose worst ratio is over 1, over every cell; None if none."""
    over = [b for cell in result.cells for b, r in enumerate(cell["worst_ratio_by_position"]) if float(r) > 1]
    return min(over, default=None)
