"""Hugging Face's rotate_half RoPE as transformers computes it, in NumPy and in PyTorch, written
from its formulas (float32 inverse frequencies 1 / base^(2i/rot), float32 angles position * inv_freq,
cos and sin in float32 cast to x's dtype, y = x cos + rotate_half(x) sin), for the tests."""
import numpy as np


def inv_freq(spec):
    rot = spec.rotary_dims
    exponents = np.arange(0, rot, 2, dtype=np.int64).astype(np.float32) / np.float32(rot)
    return (np.float32(1.0) / np.power(np.float32(spec.base), exponents)).astype(np.float32)


def rope_numpy(x, positions, spec):
    rot = spec.rotary_dims
    angles = positions.astype(np.float32)[..., None] * inv_freq(spec)
    both = np.concatenate([angles, angles], axis=-1)
    cos = np.cos(both).astype(x.dtype)[:, :, None, :]
    sin = np.sin(both).astype(x.dtype)[:, :, None, :]
    r = x[..., :rot]
    half = rot // 2
    rotated = np.concatenate([-r[..., half:], r[..., :half]], axis=-1)
    y = x.copy()
    y[..., :rot] = r * cos + rotated * sin
    return y


def rope_torch(x, positions, spec):
    import torch
    rot = spec.rotary_dims
    angles = positions.to(torch.float32)[..., None] * torch.from_numpy(inv_freq(spec))
    both = torch.cat([angles, angles], dim=-1)
    cos = both.cos().to(x.dtype)[:, :, None, :]
    sin = both.sin().to(x.dtype)[:, :, None, :]
    r = x[..., :rot]
    half = rot // 2
    rotated = torch.cat([-r[..., half:], r[..., :half]], dim=-1)
    return torch.cat([r * cos + rotated * sin, x[..., rot:]], dim=-1)
