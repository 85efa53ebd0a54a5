"""vLLM's rotary embeddings as its model code builds and calls them: `get_rope(head_size,
max_position, is_neox_style, rope_parameters, dtype)` (vllm/model_executor/layers/rotary_embedding/
__init__.py) picks the class from the config's rope_parameters (`RotaryEmbedding`, llama3, YaRN,
DeepSeek's YaRN, linear, Phi-3's LongRoPE and `MRotaryEmbedding` for Qwen-VL's sections, with
YaRN too), and
`forward_native(positions, query, key)` is the PyTorch path vLLM runs where no compiled kernel is
(the PyPI wheel's `vllm._C` is CUDA's; on the CPU vLLM dispatches to forward_native too; LongRoPE's
class is a plain module, whose forward is that path).

The module holds a cos/sin cache made at construction from `torch.arange(rows, dtype=torch.float)`:
rows = max_position (YaRN: original_max_position * factor; linear: max_position * factor, whose
positions are then divided by the factor in float32; mrope: max_position * 4, with YaRN
original_max_position * 4 * factor; dynamic NTK takes the
model's max_position, from which it forms its base). inv_freq =
1 / base ** (arange(0, rot, 2) / rot) in float32 (transformers' recipe, theta=hf; llama3's and
YaRN's float32 blends on it), the angle one float32 product (einsum), cos and sin in float32 (YaRN:
times its float32 attention factor), then the cache cast to the model's dtype. The rotation
(`ApplyRotaryEmb.forward_static`, or DeepSeek's own) casts cos and sin to x's dtype and forms
x1 * cos - x2 * sin there: in bf16 both the cache and the arithmetic round to bf16 (cache=storage,
math=storage). Phi-3's LongRoPE builds two caches, the short factors' over original_max_position
rows and the long factors' over max_position rows, each times its attention factor in float32,
and takes the long one at every position when the model's max_model_len passes
original_max_position (Phi-3 128k's does): its spec names that length, `len=131072`, so the
reference takes the long factors everywhere too.

peconform's positions reach 2^31 - 1, and no cache that long fits: the callable builds the module
with `max_position` the count of the call's distinct positions, answers that one torch.arange
(matched by the count, or by the rows the class computes from it) with those positions
(campaign_positions.ArangeGives), and passes each token's row of that cache. get_rope memoises
modules by its arguments, and a count equals any int of its value, so the memo is emptied before
each build. Everything else is vLLM's own code.
"""
import json
import os
import types

import torch
import vllm
from vllm.config import DeviceConfig, VllmConfig, set_current_vllm_config
from vllm.model_executor.layers import rotary_embedding

from campaign_positions import ArangeGives, distinct_positions, enumerated_once
from rows import Column, Row, exact_angle

LIBRARY = "vllm"
SOURCE = "vllm/model_executor/layers/rotary_embedding/"
# A CPU device config: vLLM's custom ops read the current config when they are built.
CPU_CONFIG = VllmConfig(device_config=DeviceConfig(device="cpu"))
# Phi-3 mini/vision 128k (fixtures/hf-configs/phi-3-vision-128k-longrope-v5, its text model): LongRoPE
# reads the model's max_model_len from the current config, which vLLM makes from the checkpoint; this
# one holds the model's own, 131072 (no checkpoint is at hand to build a whole ModelConfig).
PHI3_CONFIG_JSON = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "hf-configs",
                                "phi-3-vision-128k-longrope-v5", "config.json")
PHI3_MAX_POSITION = 131072
PHI3_CPU_CONFIG = VllmConfig(device_config=DeviceConfig(device="cpu"))
object.__setattr__(PHI3_CPU_CONFIG, "model_config", types.SimpleNamespace(max_model_len=PHI3_MAX_POSITION))

FP32 = Column("fp32-angle", "precision=fp32-angle,theta=hf",
              "a float32 model: inv_freq = 1/base**(arange(0,rot,2)/rot) in float32 (theta=hf, llama3's blend as "
              "transformers forms it), float32 positions and angles, a float32 cos/sin cache, the rotation in float32")
BF16 = Column("bf16", "dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage",
              "a bf16 model: the same float32 angles, the cache cast to bf16 (cache=storage), and x1 * cos - x2 * sin "
              "on bf16 tensors, each product and the sum rounded to bf16 (math=storage)")
COLUMNS = (FP32, BF16, exact_angle())


def cache_rows(rope_parameters, count):
    """The length of the torch.arange the class builds its cache from, as the class computes it
    (None: the count itself, matched by identity)."""
    kind = rope_parameters.get("rope_type", "default")
    if kind == "dynamic":
        return DYNAMIC_MAX_POSITION
    if kind == "longrope":
        return PHI3_MAX_POSITION
    if "mrope_section" in rope_parameters and kind == "yarn":
        # MRotaryEmbedding with YaRN builds YaRN's cache over its own max_position: orig * 4.
        return rope_parameters["original_max_position_embeddings"] * MROPE_POSITIONS_FACTOR * rope_parameters["factor"]
    if "mrope_section" in rope_parameters:
        return count * MROPE_POSITIONS_FACTOR
    if kind in ("yarn", "deepseek_yarn"):
        return rope_parameters["original_max_position_embeddings"] * rope_parameters["factor"]
    if kind == "linear":
        return count * rope_parameters["factor"]
    return None


def config_for(rope_parameters):
    return PHI3_CPU_CONFIG if rope_parameters.get("rope_type") == "longrope" else CPU_CONFIG


def built_over(positions, head_size, is_neox_style, rope_parameters, dtype):
    """get_rope's module with one cache row per position of `positions` (int64, 1-D)."""
    rotary_embedding._ROPE_DICT.clear()
    end = cache_rows(rope_parameters, len(positions))
    # Dynamic NTK forms its base from max_position, and LongRoPE its attention factor: they get the
    # model's, not the count.
    model_length = rope_parameters.get("rope_type") in ("dynamic", "longrope")
    with set_current_vllm_config(config_for(rope_parameters)), ArangeGives(positions, end) as gives:
        max_position = end if model_length else gives.count
        module = rotary_embedding.get_rope(head_size, max_position, is_neox_style, rope_parameters, dtype)
    enumerated_once(gives, f"{type(module).__name__}._compute_cos_sin_cache")
    return module


class VllmRotary:
    """fn(x, positions, spec) for peconform.check(): x [batch, seq, heads, d] in the model's dtype,
    positions [batch, seq], or [3, batch, seq] (t, h, w) for an mrope row."""

    def __init__(self, is_neox_style, rope_parameters):
        self.is_neox_style, self.rope_parameters = is_neox_style, rope_parameters
        self.__qualname__ = "vllm.get_rope(...).forward_native"

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq, heads, d = x.shape
        streams = 3 if "mrope_section" in self.rope_parameters else 1
        distinct, rows = distinct_positions(positions, batch, seq, streams)
        rows = rows.reshape(streams, batch * seq) if streams > 1 else rows.reshape(-1)
        module = built_over(distinct, d, self.is_neox_style, self.rope_parameters, x.dtype)
        with torch.no_grad(), set_current_vllm_config(config_for(self.rope_parameters)):
            # DeepSeek's and LongRoPE's classes rotate a key with every query (they assert one): x
            # serves as both. LongRoPE's is a plain module, whose forward takes [tokens, heads * d]
            # and views the heads itself; the others' forward_native takes [tokens, heads, d].
            if hasattr(module, "forward_native"):
                tokens = x.reshape(batch * seq, heads, d)
                query, _ = module.forward_native(rows, tokens, tokens.clone())
            else:
                tokens = x.reshape(batch * seq, heads * d)
                query, _ = module(rows, tokens, tokens.clone())
        return query.reshape(batch, seq, heads, d)


def row(key, name, spec, is_neox_style, rope_parameters, source, finding=""):
    family = "mrope" if "mrope_section" in rope_parameters else "rope"
    return Row(LIBRARY, family, key, name, spec, COLUMNS, lambda: VllmRotary(is_neox_style, rope_parameters),
               SOURCE + source, finding=finding)


def versions():
    return {"vllm": vllm.__version__, "torch": torch.__version__}


# The rope fields of each model's config.json as vLLM reads them (rope_parameters).
LLAMA3_1 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}


# Qwen2.5-7B-Instruct's long-context setting (its model card's rope_scaling), and a linear one.
QWEN2_5_YARN = {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 4.0, "original_max_position_embeddings": 32768}
LINEAR_4 = {"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}
# Dynamic NTK as vLLM has it: one base, for max_position = factor x the trained length, made at
# construction (transformers' dynamic at len = max_position).
DYNAMIC_MAX_POSITION = 8192
DYNAMIC_2 = {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0, "max_trained_positions": 4096}
# get_rope's default: MRotaryEmbedding's cache has max_position * this many rows.
MROPE_POSITIONS_FACTOR = 4


def phi3_longrope_parameters():
    """The rope fields of the Phi-3 128k config as vLLM reads them (rope_parameters, with the model's
    original_max_position_embeddings)."""
    with open(PHI3_CONFIG_JSON) as config_file:
        config = json.load(config_file)
    return dict(config["rope_parameters"], original_max_position_embeddings=config["original_max_position_embeddings"])


def decimals(values):
    return "[" + ",".join(repr(float(value)) for value in values) + "]"


def phi3_longrope_spec():
    """rope(d=96, ...) with LongRoPE's lists as the config gives them, at len=131072: the model's
    max_model_len, past the original length, so the long factors everywhere."""
    parameters = phi3_longrope_parameters()
    return (f"rope(d=96,base=10000,layout=half,scaling=longrope(factor=32,orig=4096,short={decimals(parameters['short_factor'])},"
            f"long={decimals(parameters['long_factor'])},len={PHI3_MAX_POSITION}))")


# Qwen2.5-VL-7B-Instruct's rope fields with the YaRN its model card adds for long inputs
# (factor 4 over 32768 positions): get_rope builds MRotaryEmbedding with YaRN's frequencies.
QWEN2_5_VL_YARN = {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 4.0, "original_max_position_embeddings": 32768,
                   "mrope_section": [16, 24, 24]}
# The rope fields of Qwen2-VL-7B-Instruct's and Qwen3-VL-8B-Instruct's config.json.
QWEN2_VL = {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]}
QWEN3_VL = {"rope_type": "default", "rope_theta": 5000000.0, "mrope_section": [24, 20, 20], "mrope_interleaved": True}
# DeepSeek-V3's rope_scaling, as vLLM's DeepSeek model hands it to get_rope for its 64 rotary dims.
DEEPSEEK_V3 = {"rope_type": "deepseek_yarn", "rope_theta": 10000.0, "factor": 40.0,
               "original_max_position_embeddings": 4096, "beta_fast": 32, "beta_slow": 1, "mscale": 1.0,
               "mscale_all_dim": 1.0}


def rows():
    return [
        row("rope/llama2-7b", "get_rope(128, is_neox_style=True) (Llama 2 7B)", "rope(d=128,base=10000,layout=half)",
            True, {"rope_theta": 10000.0}, "base.py: RotaryEmbedding"),
        row("rope/qwen2-7b", "get_rope(128, is_neox_style=True, rope_theta=1e6) (Qwen2 7B)",
            "rope(d=128,base=1000000,layout=half)", True, {"rope_theta": 1000000.0}, "base.py: RotaryEmbedding"),
        row("rope/gpt-j-6b", "get_rope(256, is_neox_style=False, rope_dim=64) (GPT-J 6B)",
            "rope(d=256,base=10000,layout=interleaved,rot=64)", False, {"rope_theta": 10000.0, "rope_dim": 64},
            "base.py: RotaryEmbedding"),
        row("rope/phi-2", "get_rope(80, is_neox_style=True, partial_rotary_factor=0.4) (Phi-2)",
            "rope(d=80,base=10000,layout=half,rot=32)", True, {"rope_theta": 10000.0, "partial_rotary_factor": 0.4},
            "base.py: RotaryEmbedding"),
        row("llama3/llama3.1-8b", "get_rope(128, rope_type=llama3, factor=8) (Llama 3.1 8B)",
            "rope(d=128,base=500000,layout=half,scaling=llama3(factor=8,orig=8192,low=1,high=4))", True, LLAMA3_1,
            "llama3_rope.py: Llama3RotaryEmbedding"),
        row("yarn/qwen2.5-7b", "get_rope(128, rope_type=yarn, factor=4, orig=32768) (Qwen2.5 7B, long context)",
            "rope(d=128,base=1000000,layout=half,scaling=yarn(factor=4,orig=32768))", True, QWEN2_5_YARN,
            "yarn_scaling_rope.py: YaRNScalingRotaryEmbedding"),
        row("yarn/deepseek-v3", "get_rope(64, is_neox_style=False, rope_type=deepseek_yarn, factor=40) (DeepSeek-V3)",
            "rope(d=64,base=10000,layout=interleaved,scaling=yarn(factor=40,orig=4096,beta_fast=32,beta_slow=1,mscale=1,"
            "mscale_all_dim=1))", False, DEEPSEEK_V3, "deepseek_scaling_rope.py: DeepseekScalingRotaryEmbedding"),
        row("mrope/qwen2-vl-7b", "get_rope(128, mrope_section=[16, 24, 24]) (Qwen2-VL 7B)",
            "mrope(d=128,base=1000000,layout=half,sections=[16,24,24])", True, QWEN2_VL, "mrope.py: MRotaryEmbedding"),
        row("mrope/qwen2.5-vl-7b-yarn", "get_rope(128, mrope_section=[16, 24, 24], rope_type=yarn, factor=4, orig=32768) "
            "(Qwen2.5-VL 7B, long context)",
            "mrope(d=128,base=1000000,layout=half,sections=[16,24,24],scaling=yarn(factor=4,orig=32768))", True,
            QWEN2_5_VL_YARN, "mrope.py: MRotaryEmbedding, yarn_scaling_rope.py: YaRNScalingRotaryEmbedding",
            finding="vllm: MRotaryEmbedding with YaRN ramps over 4 x original_max_position_embeddings"),
        row("mrope/qwen3-vl-8b", "get_rope(128, mrope_section=[24, 20, 20], mrope_interleaved=True) (Qwen3-VL 8B)",
            "mrope(d=128,base=5000000,layout=half,sections=[24,20,20],section_mode=interleaved)", True, QWEN3_VL,
            "mrope.py: MRotaryEmbedding"),
        row("dynamic/d128-factor2", "get_rope(128, max_position=8192, rope_type=dynamic, factor=2, max_trained_positions=4096)",
            "rope(d=128,base=10000,layout=half,scaling=dynamic(factor=2,orig=4096,len=8192))", True, DYNAMIC_2,
            "dynamic_ntk_scaling_rope.py: DynamicNTKScalingRotaryEmbedding"),
        row("linear/d128-factor4", "get_rope(128, rope_type=linear, factor=4)",
            "rope(d=128,base=10000,layout=half,scaling=linear(factor=4))", True, LINEAR_4,
            "linear_scaling_rope.py: LinearScalingRotaryEmbedding"),
        row("longrope/phi-3-128k", "get_rope(96, max_position=131072, rope_type=longrope) (Phi-3 128k, max_model_len 131072)",
            phi3_longrope_spec(), True, phi3_longrope_parameters(),
            "phi3_long_rope_scaled_rope.py: Phi3LongRoPEScaledRotaryEmbedding"),
    ]
