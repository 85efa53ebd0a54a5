"""cos and sin as transformers hands them to a model's attention layer, for the Triton kernels
that take them rather than form them (Liger-Kernel, flash-attn's apply_rotary, Unsloth): the
model's own rotary embedding module, built from its config under fixtures/hf-configs/ as
adapt_transformers builds it, called on the token positions. Its forward forms θ and the angle
in float32 (theta=hf, with the config's plan) and ends with `cos.to(x.dtype)`: called for a
float32 x it hands float32 tables, for a bf16 or fp16 x tables in that dtype (cache=storage), as
a model of that dtype receives them. Each table is [batch, seq, rot], the frequencies repeated
once (cat(freqs, freqs)).

transformers imports triton as its model code loads, and a Triton kernel's execution mode must be
chosen before triton is imported (peconform.triton.select): transformers is imported at the
first call, never when a row is listed.
"""
import pathlib

import peconform
import torch

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "hf-configs"


class HfCosSin:
    """tables(position_ids, dtype) -> (cos, sin) for the model of fixtures/hf-configs/<shape>."""

    def __init__(self, shape):
        self.shape = shape
        self.built = None  # (config, rotary class), at the first call

    @property
    def spec(self):
        """The rope spec peconform reads from the model's config.json (d, base, layout=half, rot, plan)."""
        return peconform.Spec.from_hf_config(str(CORPUS / self.shape / "config.json")).canonical

    def __call__(self, position_ids, dtype):
        """position_ids [batch, seq] int64; the module sees x only for its dtype and device."""
        if self.built is None:
            from adapt_transformers import load_config, modeling_module, rotary_class
            config = load_config(CORPUS / self.shape)
            self.built = config, rotary_class(modeling_module(config))
        config, rotary_class = self.built
        rotary = rotary_class(config=config)
        with torch.no_grad():
            return rotary(torch.empty(0, dtype=dtype, device=position_ids.device), position_ids)
