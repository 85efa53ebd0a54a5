"""Which position stream each rotated pair of an mrope spec follows (docs/specs.md, `section_mode`),
written from the definition for the tests that check adapters against their own rotation."""
import numpy as np


def mrope_axis(pairs, sections, interleaved):
    """The stream (0 t, 1 h, 2 w) of each of `pairs` pairs: consecutive blocks of sections[0],
    sections[1] and sections[2] pairs; or, interleaved, t everywhere but h at pairs 1, 4, ..
    below 3 sections[1] and w at pairs 2, 5, .. below 3 sections[2]."""
    i = np.arange(pairs)
    if not interleaved:
        return np.searchsorted(np.cumsum(sections), i, side="right")
    axis = np.zeros(pairs, dtype=np.int64)
    axis[(i % 3 == 1) & (i < 3 * sections[1])] = 1
    axis[(i % 3 == 2) & (i < 3 * sections[2])] = 2
    return axis
