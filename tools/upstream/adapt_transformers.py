"""transformers' text rotary code, as the model's attention layer calls it, for each config shape
of the matrix (fixtures/hf-configs/: config.json as transformers 5.x writes it, no weights), and
its other families (adapt_transformers_families.py).

The callable builds the model's rotary embedding module from its config (transformers' own class,
found in the model's modeling module) and rotates the campaign's x with the model's own apply
function, cutting the head where the model's attention layer cuts it. Nothing of the rotation is
ported: this file only moves x between peconform's [batch, seq, heads, d] and transformers'
[batch, heads, seq, d] and calls upstream.
"""
import importlib
import inspect

import pathlib
from dataclasses import dataclass

import peconform
import torch
import transformers
from transformers import AutoConfig

import adapt_transformers_families
from rows import Column, Row, exact_angle

LIBRARY = "transformers"
CORPUS = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "hf-configs"

# Models whose attention layer cuts the first rotary dims off before apply_rotary_pos_emb (the
# others cut inside it, or rotate the whole head): modeling_phi.py, modeling_persimmon.py,
# modeling_stablelm.py.
SPLIT_IN_ATTENTION = {"phi", "persimmon", "stablelm"}
# DeepSeek-V3's multi-head latent attention: only the last qk_rope_head_dim dims of a head rotate.
LATENT_ATTENTION = {"deepseek_v3"}
# Gemma 4's apply function takes one tensor (modeling_gemma4.py).
ONE_TENSOR_APPLY = {"gemma4_text"}


def modeling_module(config):
    return importlib.import_module(type(config).__module__.replace(".configuration_", ".modeling_"))


def rotary_class(module):
    """The model's one text rotary embedding class."""
    names = [name for name, value in vars(module).items()
             if inspect.isclass(value) and name.endswith("RotaryEmbedding") and "Vision" not in name
             and value.__module__ == module.__name__]
    if len(names) != 1:
        raise LookupError(f"{module.__name__} has rotary classes {names}, expected one")
    return getattr(module, names[0])


def load_config(config_dir):
    """The config as transformers loads it (the model class's defaults and standardization apply)."""
    return AutoConfig.from_pretrained(config_dir).get_text_config()


class UpstreamRotary:
    """fn(x, positions, spec) -> y for peconform.check(), rotating with transformers' own code.

    x is [batch, seq, heads, d]; positions holds one id per token, [seq] or [batch, seq]. Each
    call builds the rotary module afresh, since dynamic and LongRoPE frequencies follow the
    longest position a call has seen.
    """

    def __init__(self, config_dir, layer_type=None, cast_to_bf16=False):
        self.config = load_config(config_dir)
        self.cast_to_bf16 = cast_to_bf16
        self.model_type = self.config.model_type
        self.layer_type = layer_type
        self.module = modeling_module(self.config)
        self.rotary_class = rotary_class(self.module)
        apply = "apply_rotary_pos_emb"
        if self.model_type in LATENT_ATTENTION and self.config.rope_interleave:
            apply = "apply_rotary_pos_emb_interleave"
        self.apply = getattr(self.module, apply)
        # check() names the kernel by its __qualname__.
        self.__qualname__ = f"transformers.{self.rotary_class.__name__}+{apply}"

    def rotary_kwargs(self):
        return {"layer_type": self.layer_type} if self.layer_type else {}

    def rotate(self, q, position_ids):
        """q in transformers' [batch, heads, seq, d], rotated as the model's attention layer does."""
        rotary = self.rotary_class(config=self.config)
        if self.cast_to_bf16:
            rotary = rotary.to(torch.bfloat16)  # as model.to(torch.bfloat16) casts it, inv_freq included
        cos, sin = rotary(q, position_ids, **self.rotary_kwargs())
        if self.model_type in ONE_TENSOR_APPLY:
            return self.apply(q, cos, sin)
        if self.model_type in LATENT_ATTENTION:
            nope, rope = torch.split(q, [self.config.qk_nope_head_dim, self.config.qk_rope_head_dim], dim=-1)
            rope, _ = self.apply(rope, rope, cos, sin)
            return torch.cat((nope, rope), dim=-1)
        if self.model_type in SPLIT_IN_ATTENTION:
            rotary_dims = cos.shape[-1]
            rot, rest = q[..., :rotary_dims], q[..., rotary_dims:]
            rot, _ = self.apply(rot, rot, cos, sin)
            return torch.cat((rot, rest), dim=-1)
        out, _ = self.apply(q, q, cos, sin)
        return out

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq = x.shape[0], x.shape[1]
        position_ids = torch.as_tensor(positions).to(torch.long).reshape(-1, seq).expand(batch, seq)
        with torch.no_grad():
            out = self.rotate(x.permute(0, 2, 1, 3), position_ids)
        return out.permute(0, 2, 1, 3).contiguous()

    def frequencies(self, x, position_ids):
        """The rotary module's inv_freq and attention factor for this layer type after a call on
        x ([batch, heads, seq, d]) at position_ids ([batch, seq]), where dynamic and LongRoPE plans
        have chosen theirs."""
        rotary = self.rotary_class(config=self.config)
        with torch.no_grad():
            rotary(x, position_ids, **self.rotary_kwargs())
        prefix = f"{self.layer_type}_" if self.layer_type else ""
        return getattr(rotary, f"{prefix}inv_freq"), float(getattr(rotary, f"{prefix}attention_scaling"))


@dataclass(frozen=True)
class Model:
    name: str        # how the matrix names it
    shape: str       # the directory under fixtures/hf-configs/
    layer_type: str = ""
    # Whether the model's rotary module hands back float32 cos and sin and its apply function
    # rotates a bf16 x in float32, rounding once to bf16 (OLMo 2), rather than casting cos and sin
    # to x's dtype and rounding each product and the sum in it.
    bf16_in_float32: bool = False
    # Whether the model is cast with model.to(torch.bfloat16) after it is built, which casts the
    # rotary module's inv_freq buffer to bf16 too (from_pretrained(dtype=torch.bfloat16) keeps it
    # float32).
    cast_to_bf16: bool = False

    @property
    def config_dir(self):
        return CORPUS / self.shape

    @property
    def key(self):
        """A name for the command line: the shape, the layer type where there is one, and
        module-bf16 for a model cast after it is built."""
        key = f"{self.shape}/{self.layer_type}" if self.layer_type else self.shape
        return f"{key}/module-bf16" if self.cast_to_bf16 else key


MODELS = [
    Model("Llama 3.1 8B (llama3)", "llama-3.1-8b-v5"),
    Model("Llama 3.2 1B (llama3)", "llama-3.2-1b"),
    Model("Mistral 7B v0.1", "mistral-7b-v0.1-v5"),
    Model("Qwen2 7B", "qwen2-7b"),
    Model("Qwen2.5 7B Instruct (yarn)", "qwen2.5-7b-instruct-yarn-v5"),
    Model("Qwen3 8B", "qwen3-8b-v5"),
    Model("OLMo 2 7B", "olmo-2-7b-v5", bf16_in_float32=True),
    Model("Phi-3 mini 4k", "phi-3-mini-4k"),
    Model("Phi-3 vision 128k (longrope)", "phi-3-vision-128k-longrope-v5"),
    Model("Phi-2 (partial rotary 0.4)", "phi-2-v5"),
    Model("StableLM 3B 4E1T (partial rotary 0.25)", "stablelm-3b-4e1t-v5"),
    Model("Pythia 160M, GPT-NeoX (partial rotary 0.25)", "pythia-160m-v5"),
    Model("DeepSeek-V3 (MLA, interleaved-to-half, yarn)", "deepseek-v3-v5"),
    Model("gpt-oss 20B (yarn, untruncated)", "gpt-oss-20b-v5"),
    Model("Gemma 3 1B, full attention", "gemma-3-1b-v5", "full_attention"),
    Model("Gemma 3 1B, sliding attention", "gemma-3-1b-v5", "sliding_attention"),
    Model("Gemma 4 (config defaults), full attention (proportional)", "gemma-4-text-defaults", "full_attention"),
    Model("Qwen2 7B, cast with model.to(torch.bfloat16)", "qwen2-7b", cast_to_bf16=True),
]

# transformers' own recipe, in every plan it has: theta and the angle in float32 as transformers
# forms them (theta=hf); in a bf16 model cos and sin are cast to bf16 and apply_rotary_pos_emb's
# products and sum round in bf16.
FP32 = Column("fp32-angle", "precision=fp32-angle,theta=hf",
              "transformers' own recipe in a float32 model: theta and the angle in float32, theta as "
              "transformers forms it (theta=hf), in every plan")
BF16 = Column("bf16 (transformers' recipe)", "dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage",
              "transformers' own recipe in a bf16 model: theta and the angle in float32, cos and sin cast to "
              "bf16, each product and the sum of the rotation in bf16 (cache=storage,math=storage); OLMo 2 "
              "keeps cos and sin in float32 and rotates in float32, rounding once (its row's keys say so)")
BF16_IN_FLOAT32 = Column(BF16.name, "dtype=bf16,precision=fp32-angle,theta=hf", BF16.meaning)
BF16_MODULE = Column("bf16 (model cast to bf16)", BF16.keys,
                     "a model cast with model.to(torch.bfloat16), which casts the inv_freq buffer to bf16 as well: "
                     "held to transformers' own bf16 recipe, whose float32 inv_freq the rotary module means to use "
                     "(forward upcasts it with .float() and disables autocast)")


def model_row(model):
    """The model's rotary code held to the spec Spec.from_hf_config reads from its config.json."""
    spec = peconform.Spec.from_hf_config(str(model.config_dir / "config.json"), layer_type=model.layer_type)
    kernel = UpstreamRotary(model.config_dir, model.layer_type or None)
    source = f"{kernel.module.__name__.replace('.', '/')}.py: {kernel.__qualname__.split('.', 1)[1]}"
    columns = (FP32, BF16_IN_FLOAT32 if model.bf16_in_float32 else BF16, exact_angle())
    if model.cast_to_bf16:
        columns = (BF16_MODULE, exact_angle())
    return Row(LIBRARY, spec.family, model.key, model.name, spec.canonical, columns,
               lambda: UpstreamRotary(model.config_dir, model.layer_type or None, model.cast_to_bf16), source)


def versions():
    return {"transformers": transformers.__version__, "torch": torch.__version__}


def rows():
    return [model_row(model) for model in MODELS] + adapt_transformers_families.rows()
