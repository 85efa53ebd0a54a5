"""peconform.Spec, Spec.from_hf_config and list_families."""
import json

import pytest

import peconform


def test_canonical_text_orders_keys_and_drops_defaults():
    spec = peconform.Spec("rope(layout=interleaved, d=64, base=10000)")
    assert spec.canonical == "rope(d=64,base=10000,layout=interleaved)"
    assert (spec.family, spec.d, spec.rotary_dims, spec.base, spec.layout) == ("rope", 64, 64, 10000.0, "interleaved")
    assert (spec.dtype, spec.precision, spec.theta, spec.cache, spec.math) == ("fp32", "exact-angle", "exact", "compute", "compute")
    assert peconform.Spec(spec.canonical) == spec


def test_bad_spec_text_names_the_bad_value():
    with pytest.raises(peconform.SpecError, match="layout") as raised:
        peconform.Spec("rope(d=64,layout=sideways)")
    assert "sideways" in str(raised.value)
    assert isinstance(raised.value, ValueError)


LLAMA3 = {
    "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
    "max_position_embeddings": 131072,
    "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192},
}


def test_hf_config_from_a_dict_and_from_a_path_give_the_same_spec(tmp_path):
    from_dict = peconform.Spec.from_hf_config(LLAMA3)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA3))
    assert peconform.Spec.from_hf_config(path) == from_dict
    assert peconform.Spec.from_hf_config(str(path)) == from_dict
    assert from_dict.d == 128 and from_dict.base == 500000.0
    assert "llama3(" in from_dict.canonical and "factor=8" in from_dict.canonical


def test_hf_config_refusals_are_errors_naming_the_problem(tmp_path):
    with pytest.raises(peconform.SpecError, match="cannot read config file"):
        peconform.Spec.from_hf_config(str(tmp_path / "missing.json"))
    with pytest.raises(TypeError, match="path or a dict"):
        peconform.Spec.from_hf_config(42)


MISTRAL = {"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0}


def test_hf_config_with_a_dtype_is_transformers_own_recipe_in_it():
    bf16 = peconform.Spec.from_hf_config(MISTRAL, dtype="bf16")
    assert bf16.canonical == ("rope(d=128,base=10000,layout=half,dtype=bf16,precision=fp32-angle,theta=hf,"
                              "cache=storage,math=storage)")
    assert (bf16.cache, bf16.math) == ("storage", "storage")
    assert peconform.Spec("rope2d(d=8,precision=fp32-angle,position=fp32-sum)").position == "fp32-sum"
    assert peconform.Spec("rope(d=8)").position == "fp32"
    fp32 = peconform.Spec.from_hf_config(MISTRAL, dtype="fp32")
    assert fp32.canonical == "rope(d=128,base=10000,layout=half,precision=fp32-angle,theta=hf)"
    assert peconform.Spec.from_hf_config(MISTRAL).canonical == "rope(d=128,base=10000,layout=half)"
    with pytest.raises(peconform.SpecError, match="float16"):
        peconform.Spec.from_hf_config(MISTRAL, dtype="float16")
    assert peconform.Spec.from_hf_config(LLAMA3, dtype="bf16").theta == "hf"
    # dynamic NTK's float32 base is a recipe too.
    dynamic = dict(MISTRAL, max_position_embeddings=4096, rope_scaling={"rope_type": "dynamic", "factor": 2.0})
    assert peconform.Spec.from_hf_config(dynamic, dtype="bf16").theta == "hf"
    with pytest.raises(peconform.SpecError, match="ends cross"):
        peconform.Spec("rope(d=2,base=10,precision=fp32-angle,theta=ggml,scaling=yarn(factor=2,orig=32768,beta_fast=8))")


def test_list_families_is_the_cli_order():
    assert peconform.list_families() == ["sinusoidal", "learned", "rope", "xpos", "mrope", "rope2d", "alibi", "t5", "shaw", "xl"]
