"""onnxruntime's CPU RotaryEmbedding kernels: the ONNX operator of opset 23 (domain "") and the
contrib operator com.microsoft.RotaryEmbedding, each as a one-node model built with onnx.helper and
run by an InferenceSession on CPUExecutionProvider, in float32 and float16; and the contrib
operator com.microsoft.MRotaryEmbedding (Qwen-VL's multimodal RoPE: three position streams, t, h
and w, each gathering from the same cache for its section of the pairs), in float32.

Upstream's code under test is C++: onnxruntime/core/providers/cpu/llm/rotary_embedding.cc (opset
23) and onnxruntime/contrib_ops/cpu/bert/rotary_embedding.cc (contrib) gather each token's cos and
sin rows by position_ids and call MLAS's MlasRotaryEmbedOneRow
(onnxruntime/core/mlas/lib/rotary_embedding.cpp; on x86 with AVX2 the kernels of
rotary_embedding_kernel_avx2.cpp). For float16 both paths widen x, cos and sin to float32, do the
products and the sum in float32 (fused multiply-adds on AVX2) and round once to float16 on the store: the
rotation's arithmetic is float32 (math=compute), only the cache is float16 (cache=storage).

Both operators take cos_cache and sin_cache as inputs, so the cache is this adapter's part, made by
the recipe exporters use (onnxruntime-genai's model builder, transformers' rotary module): float32
inv_freq = 1 / base^(2i/rot) through torch's float32 pow, float32 angles = float32 position times
inv_freq, cos and sin in float32, cast to float16 for a float16 model. The kernel is what is tested:
its gather by position_ids, its pairing (interleaved 0/1), its partial rotary
(rotary_embedding_dim) and its arithmetic.

The campaign draws positions up to 2^31 - 1, and both kernels index the cache by position, so an
exporter's cache would need max_position + 1 rows. Up to FULL_CACHE_ROWS rows the adapter builds
exactly that cache and passes the positions as position_ids. Past it the cache holds one row per
distinct position of the call, in descending order of position, and position_ids holds each
token's row: position_ids is per (batch, token) in both operators, each row's values are those the
exporter's row for that position holds (the same float32 operations on the same float32 position),
and the kernel's gather is still what picks them. Since the rows run against the tokens' order, a
kernel that ignored position_ids, read another batch's ids or strode the cache wrongly would rotate
by another position's angles and fail. Both kernels refuse a cache with fewer rows than the call
has tokens, so either cache is padded to that many rows with NaN rows no token's id names, which
also makes a read of a wrong row fail loudly. What the compact cache cannot show is the kernel's
offset arithmetic past 2^31 cache elements (position x rot/2), a cache of 8 GiB each for cos and
sin in float32.
"""
import dataclasses
import functools

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import TensorProto, helper

from rows import Column, Row, exact_angle

LIBRARY = "onnxruntime"
ONNX_OPSET = 23
MS_DOMAIN = "com.microsoft"
# An exporter's cache holds max_position_embeddings rows (8192 for Llama 3's original context);
# calls whose positions fit get that cache, indexed by position itself.
FULL_CACHE_ROWS = 8192

ELEMENT_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16}
TORCH_DTYPES = {np.dtype(np.float32): torch.float32, np.dtype(np.float16): torch.float16}


@dataclasses.dataclass(frozen=True)
class Operator:
    key: str
    domain: str
    inputs: tuple       # the node's input names in the operator's order
    heads_first: bool   # x as [batch, heads, seq, d] (4D); else [batch, seq, heads * d] (3D)
    title: str
    source: str


# The opset-23 operator takes its 4D form, [batch, heads, seq, head], as transformers' attention
# hands q and k to RoPE; the contrib operator its 3D form, [batch, seq, hidden], as
# onnxruntime-genai's builder feeds it the projection's output. Both forms are the kernels' own
# strides over the same rows.
ONNX_ROTARY = Operator("onnx23", "", ("input", "cos_cache", "sin_cache", "position_ids"), True,
                       "RotaryEmbedding (ONNX opset 23)",
                       "onnxruntime/core/providers/cpu/llm/rotary_embedding.cc: RotaryEmbedding<T> "
                       "+ core/mlas/lib/rotary_embedding.cpp: MlasRotaryEmbedOneRow")
CONTRIB_ROTARY = Operator("contrib", MS_DOMAIN, ("input", "position_ids", "cos_cache", "sin_cache"), False,
                          "com.microsoft.RotaryEmbedding (contrib)",
                          "onnxruntime/contrib_ops/cpu/bert/rotary_embedding.cc: RotaryEmbedding<T> "
                          "+ core/mlas/lib/rotary_embedding.cpp: MlasRotaryEmbedOneRow")


def value_info(name, element_type, shape):
    return helper.make_tensor_value_info(name, element_type, shape)


def rotary_model(op, dtype, heads, d, rot, interleaved):
    """The one-node model: x, position_ids and the caches as inputs with symbolic batch, seq and
    cache rows; num_heads only where the operator needs it (3D input), rotary_embedding_dim only
    for partial rotary, as exporters write them."""
    element = ELEMENT_TYPES[np.dtype(dtype)]
    x_shape = ["batch", heads, "seq", d] if op.heads_first else ["batch", "seq", heads * d]
    shapes = {"input": (element, x_shape), "position_ids": (TensorProto.INT64, ["batch", "seq"]),
              "cos_cache": (element, ["rows", rot // 2]), "sin_cache": (element, ["rows", rot // 2])}
    attributes = {"interleaved": int(interleaved)}
    if rot < d:
        attributes["rotary_embedding_dim"] = rot
    if not op.heads_first:
        attributes["num_heads"] = heads
    node = helper.make_node("RotaryEmbedding", list(op.inputs), ["output"], domain=op.domain, **attributes)
    graph = helper.make_graph([node], f"rotary_{op.key}", [value_info(n, *shapes[n]) for n in op.inputs],
                              [value_info("output", element, x_shape)])
    imports = [helper.make_opsetid("", ONNX_OPSET)] + ([helper.make_opsetid(MS_DOMAIN, 1)] if op.domain else [])
    # The IR version the opsets need, not the onnx package's newest, which onnxruntime may not read yet.
    model = helper.make_model(graph, opset_imports=imports,
                              ir_version=helper.find_min_ir_version_for(imports, ignore_unknown=True))
    if not op.domain:
        onnx.checker.check_model(model)  # the checker knows the standard operator's schema only
    return model


@functools.lru_cache(maxsize=None)
def session(op, dtype, heads, d, rot, interleaved):
    """One InferenceSession per operator configuration, on one thread (the campaign runs one call
    at a time)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    model = rotary_model(op, dtype, heads, d, rot, interleaved)
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def inv_freq(base, rot):
    """theta_i = 1 / base^(2i/rot) through float32 pow, as transformers and onnxruntime-genai's
    builder form it."""
    return 1.0 / (base ** (torch.arange(0, rot, 2, dtype=torch.int64).float() / rot))


def cache_rows(positions):
    """The positions the cache's rows hold (row j holds rows[j]'s angles) and each token's row."""
    top = int(positions.max())
    if top < FULL_CACHE_ROWS:
        return np.arange(top + 1, dtype=np.int64), positions
    distinct, token_row = np.unique(positions, return_inverse=True)
    # Descending: a token's row is then neither its sequence index nor its position's rank.
    return distinct[::-1].copy(), (len(distinct) - 1 - token_row).reshape(positions.shape)


def caches(row_positions, freqs, dtype, rows):
    """cos and sin of float32 position x float32 inv_freq, in float32, cast to the model's dtype;
    NaN rows after them up to `rows`. Both kernels refuse a cache of fewer rows than the call has
    tokens ("Updating cos_cache and sin_cache ... is not currently supported"), which an exporter's
    max_position_embeddings rows never are; no token's id names a NaN row, so a kernel that read
    one would fail the case."""
    angles = torch.outer(torch.from_numpy(row_positions).float(), freqs)
    angles = torch.cat((angles, torch.full((rows - len(row_positions), len(freqs)), float("nan"))))
    storage = TORCH_DTYPES[np.dtype(dtype)]
    return angles.cos().to(storage).numpy(), angles.sin().to(storage).numpy()


class OnnxRuntimeRotary:
    """fn(x, positions, spec) -> y for peconform.check(): x [batch, seq, heads, d] rotated by one
    RotaryEmbedding node on onnxruntime's CPU provider."""

    def __init__(self, op, d, rot, base, interleaved):
        self.op, self.d, self.rot, self.base, self.interleaved = op, d, rot, base, interleaved
        self.freqs = inv_freq(base, rot)
        self.__qualname__ = f"onnxruntime.{op.key}.RotaryEmbedding"  # check() names the kernel by it

    def to_operator(self, x):
        batch, seq, heads, d = x.shape
        if self.op.heads_first:
            return np.ascontiguousarray(x.transpose(0, 2, 1, 3))
        return np.ascontiguousarray(x).reshape(batch, seq, heads * d)

    def from_operator(self, y, shape):
        batch, seq, heads, d = shape
        return y.transpose(0, 2, 1, 3) if self.op.heads_first else y.reshape(batch, seq, heads, d)

    def __call__(self, x, positions, spec):
        x = np.asarray(x)
        batch, seq, heads, _ = x.shape
        positions = np.broadcast_to(np.asarray(positions, dtype=np.int64).reshape(-1, seq), (batch, seq))
        row_positions, position_ids = cache_rows(positions)
        cos, sin = caches(row_positions, self.freqs, x.dtype, max(len(row_positions), seq))
        feeds = {"input": self.to_operator(x), "position_ids": np.ascontiguousarray(position_ids),
                 "cos_cache": cos, "sin_cache": sin}
        run = session(self.op, x.dtype.type, heads, self.d, self.rot, self.interleaved)
        (y,) = run.run(["output"], feeds)
        return self.from_operator(y, x.shape)


# Two shapes for each operator and pairing: Llama 3's full head, and StableLM-3B-4E1T's partial
# rotary (20 of 80 dims: 10 pairs, so the AVX2 kernels' remainder paths run too).
SHAPES = (
    ("full", 128, 128, 500000, "Llama 3 head: d=128, base 500000"),
    ("partial", 80, 20, 10000, "StableLM-3B-4E1T head: d=80, rotary_embedding_dim=20"),
)

# The cache recipe is the adapter's (float32 inv_freq and angle as transformers forms them,
# theta=hf); the kernel's arithmetic is float32 for both dtypes, so float16 adds only the cache's
# cast (cache=storage) and the final store.
COLUMNS = (
    Column("fp32-angle", "precision=fp32-angle,theta=hf",
           "a float32 model. The operator takes cos and sin caches as inputs: the adapter builds them as "
           "transformers and onnxruntime-genai's exporter do (float32 inv_freq and angles, theta=hf), so the "
           "angles are the exporters' recipe and the operator's part is the gather by position, the pairing "
           "and the rotation's products and sum in float32", array="numpy"),
    Column("fp16 (exporters' cache)", "dtype=fp16,precision=fp32-angle,theta=hf,cache=storage",
           "a float16 model: the adapter's cache as above, cos and sin cast to float16 (cache=storage); the kernel "
           "widens x, cos and sin to float32, multiplies and sums in float32 and rounds once to float16 "
           "(math=compute)", array="numpy"),
    dataclasses.replace(exact_angle("the cache's float32"), array="numpy"),
)


def rotary_row(op, interleaved, shape):
    name, d, rot, base, described = shape
    layout = "interleaved" if interleaved else "half"
    spec = f"rope(d={d},base={base},layout={layout}" + (f",rot={rot})" if rot < d else ")")
    key = f"{op.key}-{layout}-{name}"
    title = f"{op.title}, interleaved={int(interleaved)}, {described}"
    return Row(LIBRARY, "rope", key, title, spec, COLUMNS,
               lambda: OnnxRuntimeRotary(op, d, rot, base, interleaved), op.source)


MROPE_SOURCE = "onnxruntime/contrib_ops/cpu/bert/mrotary_embedding.cc: MRotaryEmbedding<T>"


@functools.lru_cache(maxsize=None)
def mrope_session(dtype, heads, d, sections, layout):
    """A one-node com.microsoft.MRotaryEmbedding model on x [batch, heads, seq, d], position_ids
    [3, batch, seq] (t, h, w) and caches of d/2 columns; mrope_layout 0 (sections in blocks,
    Qwen2-VL) or 1 (interleaved, Qwen3-VL); the pairs (i, i + d/2) (interleaved=0)."""
    element = ELEMENT_TYPES[np.dtype(dtype)]
    x_shape = ["batch", heads, "seq", d]
    inputs = [value_info("input", element, x_shape), value_info("position_ids", TensorProto.INT64, [3, "batch", "seq"]),
              value_info("cos_cache", element, ["rows", d // 2]), value_info("sin_cache", element, ["rows", d // 2])]
    node = helper.make_node("MRotaryEmbedding", ["input", "position_ids", "cos_cache", "sin_cache"], ["output"],
                            domain=MS_DOMAIN, mrope_section=list(sections), mrope_layout=layout, interleaved=0)
    graph = helper.make_graph([node], "mrope", inputs, [value_info("output", element, x_shape)])
    imports = [helper.make_opsetid("", ONNX_OPSET), helper.make_opsetid(MS_DOMAIN, 1)]
    model = helper.make_model(graph, opset_imports=imports,
                              ir_version=helper.find_min_ir_version_for(imports, ignore_unknown=True))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


class OnnxRuntimeMultimodalRotary:
    """fn(x, positions, spec) -> y for an mrope spec: x [batch, seq, heads, d], positions [3, batch,
    seq] (t, h, w), through one MRotaryEmbedding node. The cache is the exporters' recipe, as for
    RotaryEmbedding (cache_rows, caches): its rows hold the positions of all three streams."""

    def __init__(self, d, base, sections, layout):
        self.d, self.sections, self.layout = d, tuple(sections), layout
        self.freqs = inv_freq(base, d)
        self.__qualname__ = "onnxruntime.contrib.MRotaryEmbedding"

    def __call__(self, x, positions, spec):
        x = np.asarray(x)
        batch, seq, heads, _ = x.shape
        positions = np.broadcast_to(np.asarray(positions, dtype=np.int64).reshape(3, -1, seq), (3, batch, seq))
        row_positions, position_ids = cache_rows(positions)
        cos, sin = caches(row_positions, self.freqs, x.dtype, max(len(row_positions), seq))
        feeds = {"input": np.ascontiguousarray(x.transpose(0, 2, 1, 3)), "position_ids": np.ascontiguousarray(position_ids),
                 "cos_cache": cos, "sin_cache": sin}
        (y,) = mrope_session(x.dtype.type, heads, self.d, self.sections, self.layout).run(["output"], feeds)
        return y.transpose(0, 2, 1, 3)


def mrope_rows():
    columns = COLUMNS
    return [
        Row(LIBRARY, "mrope", "mrope-blocked", "com.microsoft.MRotaryEmbedding, mrope_layout=0 (Qwen2-VL head: d=128, "
            "sections 16, 24, 24)", "mrope(d=128,base=1000000,layout=half,sections=[16,24,24])", columns,
            lambda: OnnxRuntimeMultimodalRotary(128, 1000000, (16, 24, 24), 0), MROPE_SOURCE),
        Row(LIBRARY, "mrope", "mrope-interleaved", "com.microsoft.MRotaryEmbedding, mrope_layout=1 (Qwen3-VL head: "
            "d=128, sections 24, 20, 20)",
            "mrope(d=128,base=5000000,layout=half,sections=[24,20,20],section_mode=interleaved)", columns,
            lambda: OnnxRuntimeMultimodalRotary(128, 5000000, (24, 20, 20), 1), MROPE_SOURCE),
    ]


def versions():
    return {"onnxruntime": ort.__version__, "onnx": onnx.__version__, "torch (cache)": torch.__version__}


def rows():
    return [rotary_row(op, interleaved, shape)
            for op in (ONNX_ROTARY, CONTRIB_ROTARY) for interleaved in (False, True) for shape in SHAPES] + mrope_rows()
