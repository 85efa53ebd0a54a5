"""transformers' positional encodings other than the text rotary modules, as peconform.check()
callables: Qwen2-VL's and Qwen3-VL's multimodal RoPE (modeling_qwen2_vl.py Qwen2VLRotaryEmbedding,
modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding, each with its apply_rotary_pos_emb), Qwen2-VL's
vision tower's axial 2-D RoPE (Qwen2VLVisionRotaryEmbedding, apply_rotary_pos_emb_vision), T5's bucket
function (modeling_t5.py T5Attention._relative_position_bucket) and the sinusoid tables of Whisper
(modeling_whisper.py sinusoids), Speech2Text (modeling_speech_to_text.py
Speech2TextSinusoidalPositionalEmbedding.get_embedding), DistilBERT (modeling_distilbert.py
create_sinusoidal_embeddings) and Marian (modeling_marian.py
MarianSinusoidalPositionalEmbedding.create_weight), XLNet's relative encoding
(modeling_xlnet.py XLNetModel.relative_positional_encoding, Transformer-XL's), the ALiBi biases of Bloom
(modeling_bloom.py build_alibi_tensor) and MPT (modeling_mpt.py build_mpt_alibi_tensor), and
wav2vec2-BERT's Shaw-style relative_key indices (modeling_wav2vec2_bert.py
_apply_relative_key_position_encoding) and OPT's learned table (modeling_opt.py
OPTLearnedPositionalEmbedding), all under transformers/models/ in site-packages.

Nothing of the encodings is ported. The table builders enumerate their own positions 0..n-1, and
the campaign's reach 2^31: the adapter builds each table over the campaign's positions alone by
answering the builder's one enumeration of positions (Python's range in DistilBERT and Marian,
torch.arange in Whisper, Speech2Text and XLNet) with those positions; every other operation is
upstream's.

DistilBERT's and Marian's tables form their angles, sin and cos in NumPy float64 and are held to
precision=fp64-angle. Bloom's bias is slope times the key's position for every query (alibi
mode=key), MPT's slope times the key's distance back from the last key (mode=last-key); Falcon's
is Bloom's with the slopes and positions rounded to bf16 and multiplied in bf16 (math=storage in a
bf16 model; math=bf16 in a float32 one, where the bf16 product is then cast to float32).
"""
import builtins
import contextlib
import types

import torch
from transformers import (Qwen2VLTextConfig, Qwen2VLVisionConfig, Qwen3VLTextConfig, Wav2Vec2BertConfig, XLNetConfig,
                          XLNetModel)
from transformers.models.bloom import modeling_bloom
from transformers.models.distilbert import modeling_distilbert
from transformers.models.falcon import modeling_falcon
from transformers.models.marian import modeling_marian
from transformers.models.mpt import modeling_mpt
from transformers.models.opt import modeling_opt
from transformers.models.qwen2_vl import modeling_qwen2_vl
from transformers.models.qwen3_vl import modeling_qwen3_vl
from transformers.models.speech_to_text import modeling_speech_to_text
from transformers.models.t5 import modeling_t5
from transformers.models.wav2vec2_bert import modeling_wav2vec2_bert
from transformers.models.whisper import modeling_whisper

from campaign_positions import ArangeGives, ArangesGiveInTurn, PositionCount, enumerated_once
from rows import Column, Row, exact_angle

LIBRARY = "transformers"

# The rope fields of Qwen2-VL-7B-Instruct's and Qwen3-VL-8B-Instruct's config.json
# (fixtures/hf-configs/qwen2-vl-7b-v5, qwen3-vl-8b-v5); the rest are the config classes' defaults.
QWEN2_VL = {"hidden_size": 3584, "num_attention_heads": 28,
            "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [16, 24, 24]}}
QWEN3_VL = {"hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
            "rope_parameters": {"rope_type": "default", "rope_theta": 5000000, "mrope_section": [24, 20, 20],
                                "mrope_interleaved": True}}


class MultimodalRotary:
    """fn(x, positions, spec) -> y for an mrope spec: x [batch, seq, heads, d], positions
    [3, batch, seq] (t, h, w). The model's rotary module forms cos and sin from the three rows and
    recomposes their sections (5.x does it there; 4.x's apply_multimodal_rotary_pos_emb is gone),
    and the model's apply_rotary_pos_emb rotates."""

    def __init__(self, module, rotary_class, config):
        self.rotary = getattr(module, rotary_class)(config=config)
        self.apply = module.apply_rotary_pos_emb
        # check() names the kernel by its __qualname__.
        self.__qualname__ = f"transformers.{rotary_class}+apply_rotary_pos_emb"

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq = x.shape[0], x.shape[1]
        position_ids = torch.as_tensor(positions).to(torch.long).reshape(3, -1, seq).expand(3, batch, seq)
        q = x.permute(0, 2, 1, 3)  # transformers' [batch, heads, seq, d]
        with torch.no_grad():
            cos, sin = self.rotary(q, position_ids)
            out, _ = self.apply(q, q, cos, sin)
        return out.permute(0, 2, 1, 3).contiguous()


class VisionAxialRotary:
    """fn(x, positions, spec) -> y for rope2d: Qwen2VLVisionRotaryEmbedding(config)(x, position_ids)
    with position_ids [tokens, 2], each token's (h, w) = the campaign's (x, y); the module forms
    cos and sin of each axis's d/4 frequencies and lays them out [h, w, h, w] over the head, and
    apply_rotary_pos_emb_vision rotates q [tokens, heads, d] by rotate_half in float32, returning
    q's dtype. Qwen2-VL-7B's vision tower: embed_dim 1280 over 16 heads, d 80, base 10000."""

    def __init__(self):
        self.rotary = modeling_qwen2_vl.Qwen2VLVisionRotaryEmbedding(Qwen2VLVisionConfig())
        self.__qualname__ = "transformers.Qwen2VLVisionRotaryEmbedding+apply_rotary_pos_emb_vision"

    def __call__(self, x, positions, spec):
        x = torch.as_tensor(x)
        batch, seq, heads, d = x.shape
        position_ids = torch.as_tensor(positions).to(torch.long).reshape(2, -1, seq).expand(2, batch, seq).reshape(2, -1).T
        with torch.no_grad():
            cos, sin = self.rotary(x, position_ids)
            q = x.reshape(batch * seq, heads, d)
            out, _ = modeling_qwen2_vl.apply_rotary_pos_emb_vision(q, q, cos, sin)
        return out.reshape(x.shape)


def t5_buckets(queries, keys, spec):
    """[q, k] int32 buckets of memory_position - query_position, formed as T5Attention.compute_bias
    forms them, through T5Attention._relative_position_bucket."""
    # The spec's keys leave out values at their default, as its canonical text does (true here).
    bidirectional = spec.keys.get("bidirectional", True)
    relative = torch.as_tensor(keys).to(torch.long)[None, :] - torch.as_tensor(queries).to(torch.long)[:, None]
    buckets = modeling_t5.T5Attention._relative_position_bucket(
        relative, bidirectional=bidirectional, num_buckets=spec.keys["buckets"],
        max_distance=spec.keys["max_distance"])
    return buckets.to(torch.int32)


class RelativeKeyIndex:
    """fn(queries, keys, spec) -> [q, k] int32: the distance_embedding rows wav2vec2-BERT's
    _apply_relative_key_position_encoding reads, clamp(j - i, -left, right) + left with its
    config's left_max_position_embeddings 64 and right_max_position_embeddings 8 (shaw k=64,
    right=8). The function enumerates queries and keys with arange(query_length) and
    arange(key_length), answered in turn with the campaign's. It returns the bias
    einsum(query, distance_embedding(index)) * scaling, not the index: the adapter reads the
    index out through the module's own embedding, whose row r holds r in its first column, a
    query that is 1 in that column and 0 elsewhere, and scaling 1 (every product and sum exact
    below 2^24). SeamlessM4T v2's speech encoder repeats the same lines inside its attention's
    forward, where they cannot be called alone."""

    def __init__(self):
        self.module = modeling_wav2vec2_bert.Wav2Vec2BertSelfAttention(
            Wav2Vec2BertConfig(position_embeddings_type="relative_key"))
        self.module.scaling = 1.0
        rows, width = self.module.distance_embedding.weight.shape
        with torch.no_grad():
            self.module.distance_embedding.weight.zero_()
            self.module.distance_embedding.weight[:, 0] = torch.arange(rows, dtype=torch.float32)
        self.width = width
        self.__qualname__ = "transformers.models.wav2vec2_bert._apply_relative_key_position_encoding"

    def __call__(self, queries, keys, spec):
        queries, keys = campaign_positions(queries), campaign_positions(keys)
        query = torch.zeros(1, 1, len(queries), self.width)
        query[..., 0] = 1
        key = torch.zeros(1, 1, len(keys), self.width)
        with torch.no_grad(), ArangesGiveInTurn(queries, keys) as gives:
            _, bias = modeling_wav2vec2_bert._apply_relative_key_position_encoding(self.module, query, key)
        if gives.answered != 2:
            raise RuntimeError(f"_apply_relative_key_position_encoding called torch.arange {gives.answered} times "
                               "for the campaign's positions, where the adapter expects twice (queries, keys)")
        return bias[0, 0].to(torch.int32)


class OptLearned:
    """fn(table, positions, spec) -> [batch, seq, d]: OPTLearnedPositionalEmbedding(rows, d) called
    with position_ids, which it offsets by 2 before its nn.Embedding lookup: its weight holds the
    table from row 2 on, as OPT's checkpoints store it. Rows 0 and 1, which no position reads,
    hold NaN, so that a read of them shows."""

    def __init__(self):
        self.__qualname__ = "transformers.OPTLearnedPositionalEmbedding"

    def __call__(self, table, positions, spec):
        table = torch.as_tensor(table)
        rows, d = table.shape
        module = modeling_opt.OPTLearnedPositionalEmbedding(rows, d).to(table.dtype)
        positions = campaign_positions_2d(positions)
        with torch.no_grad():
            module.weight[:2] = float("nan")
            module.weight[2:] = table
            return module(torch.ones_like(positions), position_ids=positions)


def campaign_positions_2d(positions):
    """[batch, seq] int64 positions (one batch row given alone is one row)."""
    positions = torch.as_tensor(positions).to(torch.long)
    return positions.reshape(1, -1) if positions.ndim == 1 else positions


@contextlib.contextmanager
def range_yields(module, count, positions):
    """While open, `range(count)` inside `module` yields the campaign's positions (Python ints, as
    range does); every other range is Python's."""
    def campaign_range(*args):
        return iter(positions) if len(args) == 1 and args[0] is count else builtins.range(*args)

    module.range = campaign_range
    try:
        yield
    finally:
        del module.range


def campaign_positions(positions):
    return torch.as_tensor(positions).to(torch.long).reshape(-1)


def distilbert_table(positions, spec):
    """DistilBERT's create_sinusoidal_embeddings (XLM and FlauBERT have copies) writing into a float32 table, as the
    model's Embeddings do, at the campaign's positions."""
    listed = campaign_positions(positions).tolist()
    count = PositionCount(len(listed))
    out = torch.empty(count, spec.d, dtype=torch.float32)
    with range_yields(modeling_distilbert, count, listed):
        modeling_distilbert.create_sinusoidal_embeddings(count, spec.d, out)
    return out


def marian_table(positions, spec):
    """MarianSinusoidalPositionalEmbedding.create_weight at the campaign's positions; it reads only
    the weight's shape and dtype, here a float32 weight's, the dtype the model builds it in."""
    listed = campaign_positions(positions).tolist()
    count = PositionCount(len(listed))
    weight = types.SimpleNamespace(shape=(count, spec.d), dtype=torch.float32)
    with range_yields(modeling_marian, count, listed):
        return modeling_marian.MarianSinusoidalPositionalEmbedding.create_weight(types.SimpleNamespace(weight=weight))


def whisper_table(positions, spec):
    """Whisper's sinusoids(length, channels), the encoder's position table, at the campaign's positions."""
    with ArangeGives(positions) as gives:
        return modeling_whisper.sinusoids(gives.count, spec.d)


def speech2text_table(positions, spec):
    """Speech2TextSinusoidalPositionalEmbedding.get_embedding, the module's table, at the campaign's
    positions. padding_idx=None: get_embedding zeroes the padding row by its index, and these rows
    are the campaign's positions, not the table's indices."""
    with ArangeGives(positions) as gives:
        return modeling_speech_to_text.Speech2TextSinusoidalPositionalEmbedding.get_embedding(gives.count, spec.d, None)


class BloomAlibi:
    """fn(queries, keys, spec) -> [heads, q, k]: build_alibi_tensor(attention_mask, heads, dtype),
    whose [heads, 1, keys] bias every query row shares, as BloomAttention adds it.

    Its key positions are (cumsum(mask) - 1) * mask. The campaign's keys run from key_first, up
    to 2^31 - 1: instead of a mask of key_first + k ones, the mask [key_first, 1, 1, ...] (k + 1
    entries) has the same running sums from its second entry on, and those columns are kept."""

    def __init__(self, module, dtype):
        self.module, self.dtype = module, dtype
        self.__qualname__ = f"transformers.{module.__name__.rsplit('.', 1)[-1]}.build_alibi_tensor"

    def __call__(self, queries, keys, spec):
        keys = torch.as_tensor(keys).to(torch.long).reshape(-1)
        mask = torch.ones(1, len(keys) + 1, dtype=torch.long)
        mask[0, 0] = keys[0]
        with torch.no_grad():
            bias = self.module.build_alibi_tensor(mask, spec.keys["heads"], self.dtype)[:, :, 1:]
        return bias.expand(-1, len(queries), -1).contiguous()


def mpt_alibi(queries, keys, spec):
    """fn(queries, keys, spec) -> [heads, q, k]: build_mpt_alibi_tensor(heads, k), the bias MptModel
    builds for max_seq_len and MptAttention slices to its last k keys, shared by every query row.
    It depends on the keys' distance back from the last one alone, not on where they start."""
    with torch.no_grad():
        bias = modeling_mpt.build_mpt_alibi_tensor(spec.keys["heads"], len(keys))
    return bias.expand(-1, len(queries), -1).contiguous()


# The columns.

FP32_HF = Column("fp32-angle", "precision=fp32-angle,theta=hf",
                 "float32 inv_freq = 1/base^(2i/d) through pow, float32 positions and angles, "
                 "the rotation in float32: transformers' own recipe")
BF16_HF = Column("bf16 (transformers' recipe)", "dtype=bf16,precision=fp32-angle,theta=hf,cache=storage,math=storage",
                 "the same float32 angles, cos and sin cast to bf16 and the rotation in bf16, "
                 "as a bf16 model runs it")
FP32_EXP_LOG = Column("fp32-angle (exp-log)", "precision=fp32-angle,theta=exp-log",
                      "float32 frequencies exp(k·(-ln(base)/D)) with the step a double cast to float32, "
                      "float32 positions and angles, float32 sin and cos")
BUCKETS = Column("buckets", "", "integer buckets: each must equal the exact one")
BLOOM_SLOPES = Column("fp32-angle (bloom slopes)", "precision=fp32-angle,slopes=bloom",
                      "float32 slopes torch.pow(base, k) of a float32 base, the int64 key position times "
                      "the slope in float32, then cast to the model's dtype: transformers' own recipe")
FALCON_SLOPES = Column("fp32-angle (bloom slopes, bf16 arithmetic)", "precision=fp32-angle,slopes=bloom,math=storage",
                       "Bloom's float32 slopes cast to bf16, the key position cast to bf16 and multiplied by them "
                       "in bf16 (slopes[..., None].bfloat16() * arange_tensor): transformers' own recipe")
FP64_NUMPY = Column("fp64-angle (NumPy)", "precision=fp64-angle",
                    "pos / np.power(base, 2(j//2)/d), np.sin and np.cos in float64, cast once to float32: "
                    "transformers' own recipe for these tables")
FALCON_SLOPES_FP32_MODEL = Column(
    "fp32-angle (bloom slopes, bf16 arithmetic, float32 model)", "precision=fp32-angle,slopes=bloom,math=bf16",
    "Bloom's float32 slopes and the key position rounded to bf16 and multiplied in bf16, whatever the model's "
    "dtype, then cast to float32 (.to(dtype)): transformers' own recipe")
MPT_SLOPES = Column("fp32-angle (mpt slopes)", "precision=fp32-angle,slopes=mpt",
                    "float32 slopes 1 / torch.pow(2, k·8/n'), the int32 distance times the slope in float32")


def mrope_rows():
    both = (FP32_HF, BF16_HF, exact_angle())
    return [
        Row(LIBRARY, "mrope", "qwen2-vl-mrope", "Qwen2VLRotaryEmbedding + apply_rotary_pos_emb (Qwen2-VL-7B)",
            "mrope(d=128,base=1000000,layout=half,sections=[16,24,24])", both,
            lambda: MultimodalRotary(modeling_qwen2_vl, "Qwen2VLRotaryEmbedding", Qwen2VLTextConfig(**QWEN2_VL)),
            "transformers/models/qwen2_vl/modeling_qwen2_vl.py: Qwen2VLRotaryEmbedding, apply_rotary_pos_emb"),
        Row(LIBRARY, "mrope", "qwen3-vl-mrope", "Qwen3VLTextRotaryEmbedding + apply_rotary_pos_emb (Qwen3-VL-8B)",
            "mrope(d=128,base=5000000,layout=half,sections=[24,20,20],section_mode=interleaved)", both,
            lambda: MultimodalRotary(modeling_qwen3_vl, "Qwen3VLTextRotaryEmbedding", Qwen3VLTextConfig(**QWEN3_VL)),
            "transformers/models/qwen3_vl/modeling_qwen3_vl.py: Qwen3VLTextRotaryEmbedding, apply_rotary_pos_emb"),
    ]


def vision_rows():
    # 1/base^(arange(0, d/2, 2)/(d/2)) through float32 pow (theta=hf per axis), float32 positions,
    # angles, cos, sin and rotation; a bf16 q is rotated in float32 and rounded once.
    columns = (FP32_HF,
               Column("bf16", "dtype=bf16,precision=fp32-angle,theta=hf",
                      "bf16 q upcast to float32, rotated against float32 cos and sin, rounded once to bf16"),
               exact_angle())
    return [Row(LIBRARY, "rope2d", "qwen2-vl-vision", "Qwen2VLVisionRotaryEmbedding + apply_rotary_pos_emb_vision "
                "(Qwen2-VL vision tower, head dim 80)", "rope2d(d=80,base=10000,layout=half)", columns, VisionAxialRotary,
                "transformers/models/qwen2_vl/modeling_qwen2_vl.py: Qwen2VLVisionRotaryEmbedding, apply_rotary_pos_emb_vision")]


def t5_rows():
    source = "transformers/models/t5/modeling_t5.py: T5Attention._relative_position_bucket"
    return [
        Row(LIBRARY, "t5", "t5-buckets-encoder", "T5Attention._relative_position_bucket (T5 encoder, 32 buckets, 128)",
            "t5(buckets=32,max_distance=128)", (BUCKETS,), lambda: t5_buckets, source),
        Row(LIBRARY, "t5", "t5-buckets-decoder", "T5Attention._relative_position_bucket (T5 decoder, causal)",
            "t5(buckets=32,max_distance=128,bidirectional=false)", (BUCKETS,), lambda: t5_buckets, source),
    ]


class XlnetRelative:
    """fn(distances, spec) -> [rows, d]: XLNetModel.relative_positional_encoding(qlen=1, klen), the
    [sin..., cos...] table of float32 distances times inv_freq = 1 / torch.pow(10000, arange(0, d,
    2).float() / d) that XLNet's relative attention reads (its float32 pow and reciprocal: the table
    hf recipe). It enumerates its distances klen, klen - 1, ..., -qlen + 1 with one torch.arange
    from klen, answered with the campaign's. XLNet's clamp_len defaults to -1 (no clamp), as
    xlnet-base-cased's config leaves it; a model with one clamps both signs, where Transformer-XL
    (the xl family) caps from above only."""

    def __init__(self, d_model):
        # The encoding reads d_model, attn_type, bi_data and clamp_len; the vocabulary is irrelevant to it.
        self.model = XLNetModel(XLNetConfig(d_model=d_model, n_layer=1, n_head=12, d_inner=4 * d_model, vocab_size=8))
        self.__qualname__ = "transformers.XLNetModel.relative_positional_encoding"

    def __call__(self, distances, spec):
        with torch.no_grad(), ArangeGives(distances) as gives:
            table = self.model.relative_positional_encoding(qlen=1, klen=gives.count)
        enumerated_once(gives, "XLNetModel.relative_positional_encoding")
        return table[:, 0, :]


def shaw_rows():
    return [Row(LIBRARY, "shaw", "wav2vec2-bert-relative-key",
                "_apply_relative_key_position_encoding (wav2vec2-BERT relative_key, left 64, right 8)",
                "shaw(k=64,right=8)", (Column("indices", "", "integer indices: each must equal the exact one"),),
                RelativeKeyIndex,
                "transformers/models/wav2vec2_bert/modeling_wav2vec2_bert.py: _apply_relative_key_position_encoding")]


def learned_rows():
    columns = (Column("fp32", "", "the table's rows gathered unchanged (nn.Embedding at position + 2)"),
               Column("fp16", "dtype=fp16", "OPT's checkpoints' float16: the rows gathered unchanged"))
    return [Row(LIBRARY, "learned", "opt-learned", "OPTLearnedPositionalEmbedding (OPT-125m: 2048 positions, 768 wide)",
                "learned(d=768,rows=2048)", columns, OptLearned,
                "transformers/models/opt/modeling_opt.py: OPTLearnedPositionalEmbedding")]


def xl_rows():
    return [Row(LIBRARY, "xl", "xlnet-relative", "XLNetModel.relative_positional_encoding (xlnet-base-cased, d_model 768)",
                "xl(d=768,base=10000)", (FP32_HF, exact_angle()), lambda: XlnetRelative(768),
                "transformers/models/xlnet/modeling_xlnet.py: XLNetModel.relative_positional_encoding, positional_embedding")]


def sinusoid_rows():
    exp_log = (FP32_EXP_LOG, exact_angle())
    models = "transformers/models/"
    speech2text = models + "speech_to_text/modeling_speech_to_text.py: Speech2TextSinusoidalPositionalEmbedding.get_embedding"
    return [
        Row(LIBRARY, "sinusoidal", "whisper-sinusoids", "sinusoids (Whisper encoder, d_model 384)",
            "sinusoidal(d=384,base=10000,layout=half,freq=geometric)", exp_log, lambda: whisper_table,
            models + "whisper/modeling_whisper.py: sinusoids"),
        Row(LIBRARY, "sinusoidal", "speech2text-sinusoids",
            "Speech2TextSinusoidalPositionalEmbedding.get_embedding (d_model 256)",
            "sinusoidal(d=256,base=10000,layout=half,freq=geometric)", exp_log, lambda: speech2text_table, speech2text),
        Row(LIBRARY, "sinusoidal", "speech2text-sinusoids-odd",
            "Speech2TextSinusoidalPositionalEmbedding.get_embedding (odd dim 33: a zero last column)",
            "sinusoidal(d=33,base=10000,layout=half,freq=geometric)", exp_log, lambda: speech2text_table, speech2text),
    ]


def alibi_rows():
    models = "transformers/models/"
    bloom = models + "bloom/modeling_bloom.py: build_alibi_tensor"
    rows = [
        Row(LIBRARY, "alibi", f"bloom-alibi-{heads}-{name}", f"build_alibi_tensor (Bloom, {heads} heads, {name})",
            f"alibi(heads={heads},mode=key,dtype={name})", (BLOOM_SLOPES,), lambda dtype=dtype: BloomAlibi(modeling_bloom, dtype),
            bloom)
        for heads in (16, 112) for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16))]
    rows += [
        Row(LIBRARY, "alibi", f"mpt-alibi-{heads}", f"build_mpt_alibi_tensor (MPT, {heads} heads)",
            f"alibi(heads={heads},mode=last-key)", (MPT_SLOPES,), lambda: mpt_alibi,
            models + "mpt/modeling_mpt.py: build_mpt_alibi_tensor")
        for heads in (32, 24)]
    falcon = models + "falcon/modeling_falcon.py: build_alibi_tensor"
    rows.append(
        Row(LIBRARY, "alibi", "falcon-alibi-32-bf16", "build_alibi_tensor (Falcon-RW, 32 heads, bf16)",
            "alibi(heads=32,mode=key,dtype=bf16)", (FALCON_SLOPES,), lambda: BloomAlibi(modeling_falcon, torch.bfloat16),
            falcon))
    rows.append(
        Row(LIBRARY, "alibi", "falcon-alibi-32-fp32", "build_alibi_tensor (Falcon-RW, 32 heads, in a float32 model)",
            "alibi(heads=32,mode=key)", (FALCON_SLOPES_FP32_MODEL,), lambda: BloomAlibi(modeling_falcon, torch.float32),
            falcon))
    return rows


def rows():
    return (mrope_rows() + vision_rows() + t5_rows() + shaw_rows() + learned_rows() + sinusoid_rows() + float64_table_rows() + xl_rows()
            + alibi_rows())


def float64_table_rows():
    """DistilBERT's and Marian's tables, which form their angles, sin and cos in NumPy float64 and
    cast to float32 (fp64-angle); exact-angle is the contrast, whose bound float64 angles leave
    where |phi| 2^-53 approaches a float32 ulp of a small entry."""
    columns = (FP64_NUMPY, exact_angle("NumPy float64"))
    distilbert = "transformers/models/distilbert/modeling_distilbert.py: create_sinusoidal_embeddings"
    return [
        Row(LIBRARY, "sinusoidal", "distilbert-sinusoids", "create_sinusoidal_embeddings (DistilBERT, dim 768)",
            "sinusoidal(d=768,base=10000,layout=interleaved)", columns, lambda: distilbert_table, distilbert),
        Row(LIBRARY, "sinusoidal", "distilbert-sinusoids-odd", "create_sinusoidal_embeddings (odd dim 33)",
            "sinusoidal(d=33,base=10000,layout=interleaved)", columns, lambda: distilbert_table, distilbert),
        Row(LIBRARY, "sinusoidal", "marian-sinusoids", "MarianSinusoidalPositionalEmbedding.create_weight (d_model 512)",
            "sinusoidal(d=512,base=10000,layout=half)", columns, lambda: marian_table,
            "transformers/models/marian/modeling_marian.py: MarianSinusoidalPositionalEmbedding.create_weight"),
    ]
