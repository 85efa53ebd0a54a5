"""timm's 2-D axial RoPE (timm/layers/pos_embed_sincos.py), as EVA-02 (timm/models/eva.py) and the
DeepSeek vision tower (timm/models/deepseek_vit.py) build and apply it: `RotaryEmbeddingCat` with
`apply_rot_embed_cat`, and `RotaryEmbedding` with `apply_rot_embed`, both with `in_pixels=False`
(frequencies from `freq_bands`, integer patch coordinates from `_build_grid`'s 'index' grid).

timm builds the embedding of a whole H x W grid from `torch.arange` over each axis. peconform's
coordinates reach 2^31 - 1 on each axis and need not form a grid, so the callable asks the
module for the embedding of a 1-D grid (`get_embed([n])`) with its one `torch.arange(n)` call
answered by the call's distinct coordinates, converted to float32 by timm's own `.to(float32)`.
Both axes share timm's frequency bands, and timm's 2-D embedding is the two axes' 1-D embeddings
laid out side by side (interleaved) or in halves (rotate_half): `axial` places them so, and
test_timm.py checks the result against `get_embed([H, W])` bit for bit. The angles, cos, sin and
rotation are timm's own code.

`build_sincos2d_pos_embed`, the fixed 2-D table of ViT-style models, is [sin(h b), sin(w b),
cos(h b), cos(w b)] per patch (or each axis's sin and cos side by side with interleave_sin_cos),
b = freq_bands(dim/4): each axis's sin and cos columns form a sinusoidal table of dim/2 columns
under theta=hf. Its rows hold one axis to the campaign's positions: the grid is [n, 1] or [1, n],
its one torch.arange(n) answered with them; the adapter only picks that axis's columns.

Not covered, for want of a spec: a `grid_offset` other than 0 (Perception Encoder's 1, whose float32
position fl(fl(i) + 1) is position=fp32-sum's, comes with its ref_feat_shape's rescaling), a
`ref_feat_shape` other than the grid's own (coordinates rescaled in float32 to fractions), and
`in_pixels=True` (coordinates in [-1, 1], frequencies from `pixel_freq_bands`).
"""
import timm
import torch
from timm.layers.pos_embed_sincos import (RotaryEmbedding, RotaryEmbeddingCat, apply_rot_embed, apply_rot_embed_cat,
                                         build_sincos2d_pos_embed)

from campaign_positions import ArangeGives, enumerated_once
from rows import Column, Row, exact_angle

LIBRARY = "timm"
SOURCE = "timm/layers/pos_embed_sincos.py"

# freq_bands(d/4, temperature, step=1): 1. / (temperature ** (arange(d/4).float() / (d/4))), the
# float32 pow and reciprocal of Hugging Face's recipe over d/2 dims per axis (k/(d/4) and 2k/(d/2)
# are the same float32 quotient): theta=hf. The coordinate is arange's float32, the angle a
# float32 product, sin and cos float32, and the rotation float32.
OWN = Column("fp32-angle", "precision=fp32-angle,theta=hf",
             "timm's recipe in float32: bands = 1/temperature**(arange(d/4).float()/(d/4)) in float32 "
             "(theta=hf per axis), float32 coordinates and angles, float32 sin, cos and rotation")
# A bf16 x against the float32 embedding get_embed() returns (an EVA model under autocast, or one
# built with dynamic_img_size): the products promote x to float32, and apply_rot_embed rounds the
# finished rotation once to bf16 (cache=compute, math=compute).
BF16 = Column("bf16", "dtype=bf16,precision=fp32-angle,theta=hf",
              "x in bf16 against timm's float32 embedding: the rotation promotes to float32 and rounds once "
              "to bf16 (cache=compute, math=compute)")
# get_embed(dtype=bfloat16): sin and cos formed in float32, then rounded to bf16, which is also
# what a bf16 model's cached embedding holds (nn.Module.to casts the buffer); the products and
# the sum of bf16 x with bf16 sin and cos each round to bf16 (cache=storage, math=storage).
BF16_EMBED = Column("bf16 embedding", "dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage",
                    "x and the embedding in bf16 (get_embed(dtype=torch.bfloat16), a bf16 model's cached "
                    "embedding): sin and cos rounded to bf16, each product and the sum rounded to bf16")


def axial(first, second, half):
    """A 2-D point's [..., d] sin (or cos) from the [..., d/2] 1-D values of its two coordinates,
    where timm's _rope_layout puts them: the first axis's block then the second's (interleaved),
    or each axis's first half, then each axis's second half (rotate_half)."""
    if not half:
        return torch.cat([first, second], dim=-1)
    first_a, first_b = first.chunk(2, dim=-1)
    second_a, second_b = second.chunk(2, dim=-1)
    return torch.cat([first_a, second_a, first_b, second_b], dim=-1)


class AxialRotary:
    """fn(x, positions, spec) for rope2d: timm's sin and cos at each token's two coordinates, then
    timm's apply function on x ([batch, seq, heads, d]; it broadcasts over the heads as over
    EVA's [batch, heads, seq, d])."""

    def __init__(self, rope, concatenated, embed_in_x_dtype=False):
        self.rope = rope
        self.concatenated = concatenated
        self.embed_in_x_dtype = embed_in_x_dtype
        apply = apply_rot_embed_cat if concatenated else apply_rot_embed
        self.__qualname__ = f"timm.{type(rope).__name__}.get_embed+{apply.__name__}"

    def line_embed(self, coordinates, dtype):
        """(sin, cos), [n, d/2] each, of a 1-D grid whose arange holds `coordinates`."""
        with ArangeGives(coordinates) as gives:
            embed = self.rope.get_embed([gives.count], dtype=dtype)
        enumerated_once(gives, f"{type(self.rope).__name__}.get_embed")
        return embed.chunk(2, dim=-1) if self.concatenated else embed

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq = x.shape[0], x.shape[1]
        points = torch.as_tensor(positions).to(torch.int64).reshape(2, -1, seq).expand(2, batch, seq)
        distinct, rows = torch.unique(points, return_inverse=True)
        half = self.rope.rotate_half
        with torch.no_grad():
            sin, cos = self.line_embed(distinct, x.dtype if self.embed_in_x_dtype else None)
            sin = axial(sin[rows[0]], sin[rows[1]], half)[:, :, None, :]
            cos = axial(cos[rows[0]], cos[rows[1]], half)[:, :, None, :]
            if self.concatenated:
                return apply_rot_embed_cat(x, torch.cat([sin, cos], dim=-1), half=half)
            return apply_rot_embed(x, sin, cos, half=half)


class Sincos2dAxis:
    """fn(positions, spec) -> [rows, dim/2]: axis `axis`'s sin and cos columns of
    build_sincos2d_pos_embed over a grid whose other axis is the single coordinate 0."""

    def __init__(self, dim, axis, interleave):
        self.dim, self.axis, self.interleave = dim, axis, interleave
        self.__qualname__ = "timm.build_sincos2d_pos_embed"

    def __call__(self, positions, spec):
        with ArangeGives(positions) as gives:
            shape = [gives.count, 1] if self.axis == 0 else [1, gives.count]
            table = build_sincos2d_pos_embed(shape, dim=self.dim, interleave_sin_cos=self.interleave)
        enumerated_once(gives, "build_sincos2d_pos_embed")
        bands = self.dim // 4
        if self.interleave:  # [sin h, cos h, sin w, cos w]
            return table[:, 2 * bands * self.axis:2 * bands * (self.axis + 1)].contiguous()
        sines = table[:, bands * self.axis:bands * (self.axis + 1)]  # [sin h, sin w, cos h, cos w]
        cosines = table[:, bands * (2 + self.axis):bands * (3 + self.axis)]
        return torch.cat([sines, cosines], dim=1)


TABLE = Column("fp32-angle", "precision=fp32-angle,theta=hf",
               "timm's recipe in float32: bands = 1/temperature**(arange(dim/4).float()/(dim/4)) (theta=hf "
               "over dim/2 columns), float32 coordinates and angles, float32 sin and cos")


def sincos2d_rows():
    source = f"{SOURCE}: build_sincos2d_pos_embed, freq_bands"
    rows = []
    for interleave in (False, True):
        for axis, name in ((0, "h"), (1, "w")):
            layout = "interleaved sin/cos per axis" if interleave else "sin h, sin w, cos h, cos w"
            rows.append(Row(LIBRARY, "sinusoidal", f"sincos2d/d768-{name}{'-interleaved' if interleave else ''}",
                            f"build_sincos2d_pos_embed(dim=768, {layout}): the {name} axis's columns",
                            "sinusoidal(d=384,base=10000,layout=half)", (TABLE, exact_angle()),
                            lambda axis=axis, interleave=interleave: Sincos2dAxis(768, axis, interleave), source))
    return rows


def row(key, name, spec, columns, cls, embed_in_x_dtype=False, **options):
    apply = "apply_rot_embed_cat" if cls is RotaryEmbeddingCat else "apply_rot_embed"
    kernel = lambda: AxialRotary(cls(in_pixels=False, **options), cls is RotaryEmbeddingCat, embed_in_x_dtype)
    return Row(LIBRARY, "rope2d", key, name, spec, columns, kernel,
               f"{SOURCE}: {cls.__name__}.get_embed, build_rotary_pos_embed, freq_bands, {apply}")


def versions():
    return {"timm": timm.__version__, "torch": torch.__version__}


def rows():
    contrast = exact_angle()
    return [
        row("rope-cat/d64", "RotaryEmbeddingCat(64, in_pixels=False) + apply_rot_embed_cat (EVA-02 base)",
            "rope2d(d=64,base=10000,layout=interleaved)", (OWN, BF16, contrast), RotaryEmbeddingCat, dim=64),
        row("rope-cat/d64-bf16-embed",
            "RotaryEmbeddingCat(64, in_pixels=False).get_embed(dtype=bfloat16) + apply_rot_embed_cat (EVA-02 in bf16)",
            "rope2d(d=64,base=10000,layout=interleaved)", (BF16_EMBED,), RotaryEmbeddingCat,
            embed_in_x_dtype=True, dim=64),
        row("rope-cat/d64-half", "RotaryEmbeddingCat(64, in_pixels=False, rotate_half=True) + apply_rot_embed_cat "
            "(DeepSeek vision)", "rope2d(d=64,base=10000,layout=half)", (OWN, BF16, contrast), RotaryEmbeddingCat,
            dim=64, rotate_half=True),
        row("rope/d64", "RotaryEmbedding(64, in_pixels=False) + apply_rot_embed",
            "rope2d(d=64,base=10000,layout=interleaved)", (OWN, BF16, contrast), RotaryEmbedding, dim=64),
    ] + sincos2d_rows()
