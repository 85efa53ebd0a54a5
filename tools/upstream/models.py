"""The upstream models of the conformance matrix and the precision classes each is checked under.

Each model is a config shape from fixtures/hf-configs/ (config.json as transformers 5.x writes
it; no weights) and, for models with one rope plan per layer type, the layer type.
"""
from dataclasses import dataclass
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fixtures" / "hf-configs"


@dataclass(frozen=True)
class Model:
    name: str        # how the matrix names it
    shape: str       # the directory under fixtures/hf-configs/
    layer_type: str = ""

    @property
    def config_dir(self):
        return CORPUS / self.shape

    @property
    def key(self):
        """A name for the command line: the shape, and the layer type where there is one."""
        return f"{self.shape}/{self.layer_type}" if self.layer_type else self.shape


MODELS = [
    Model("Llama 3.1 8B (llama3)", "llama-3.1-8b-v5"),
    Model("Llama 3.2 1B (llama3)", "llama-3.2-1b"),
    Model("Mistral 7B v0.1", "mistral-7b-v0.1-v5"),
    Model("Qwen2 7B", "qwen2-7b"),
    Model("Qwen2.5 7B Instruct (yarn)", "qwen2.5-7b-instruct-yarn-v5"),
    Model("Qwen3 8B", "qwen3-8b-v5"),
    Model("OLMo 2 7B", "olmo-2-7b-v5"),
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
]


@dataclass(frozen=True)
class PrecisionColumn:
    name: str
    keys: str         # appended to the config's spec
    array: str        # what check() hands the callable
    meaning: str

    def spec_text(self, canonical):
        # Hugging Face's float32 theta recipe (README, `theta`) is defined for every plan
        # transformers has.
        return canonical[:-1] + "," + self.keys + ")"


COLUMNS = [
    PrecisionColumn("fp32-angle", "precision=fp32-angle,theta=hf", "torch",
                    "transformers' own recipe in a float32 model: theta and the angle in float32, theta as "
                    "transformers forms it (theta=hf), in every plan"),
    PrecisionColumn("bf16 (transformers' recipe)", "dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage",
                    "torch",
                    "transformers' own recipe in a bf16 model: theta and the angle in float32, cos and sin cast to "
                    "bf16, each product and the sum of the rotation in bf16 (cache=storage,math=storage)"),
    PrecisionColumn("exact-angle", "precision=exact-angle", "torch",
                    "the angle exact to 2^-100 relative: float32 angles depart from it as positions grow, "
                    "so every float32 implementation fails here; the failure shows from where"),
]


def find_model(key):
    for model in MODELS:
        if model.key == key:
            return model
    raise KeyError(f"no model '{key}'; the matrix has {', '.join(m.key for m in MODELS)}")


def find_column(name):
    for column in COLUMNS:
        if column.name == name:
            return column
    raise KeyError(f"no column '{name}'; the matrix has {', '.join(c.name for c in COLUMNS)}")
