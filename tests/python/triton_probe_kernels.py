"""The kernels test_triton_gpu_faithful.py runs through the interpreter and triton_ptx.py compiles
for sm_90, undecorated, so that each process applies the @triton.jit of its own mode."""
import triton.language as tl


def elementwise(a_ptr, b_ptr, c_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = i < n
    a = tl.load(a_ptr + i, mask=inside)
    b = tl.load(b_ptr + i, mask=inside)
    c = tl.load(c_ptr + i, mask=inside)
    if OP == "add":
        r = a + b
    elif OP == "sub":
        r = a - b
    elif OP == "mul":
        r = a * b
    elif OP == "fma":
        r = tl.fma(a, b, c)
    elif OP == "neg":
        r = -a
    elif OP == "fmin":
        r = tl.minimum(a, b)
    elif OP == "fmax":
        r = tl.maximum(a, b)
    elif OP == "minimum":
        r = tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)
    elif OP == "maximum":
        r = tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)
    elif OP == "clamp-propagating-nan":
        r = tl.clamp(a, b, c, propagate_nan=tl.PropagateNan.ALL)
    else:
        r = tl.clamp(a, b, c)
    tl.store(out_ptr + i, r, mask=inside)


def comparisons(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = i < n
    a = tl.load(a_ptr + i, mask=inside)
    b = tl.load(b_ptr + i, mask=inside)
    tl.store(out_ptr + i, (a < b).to(tl.int8), mask=inside)
    tl.store(out_ptr + n + i, (a <= b).to(tl.int8), mask=inside)
    tl.store(out_ptr + 2 * n + i, (a > b).to(tl.int8), mask=inside)
    tl.store(out_ptr + 3 * n + i, (a >= b).to(tl.int8), mask=inside)
    tl.store(out_ptr + 4 * n + i, (a == b).to(tl.int8), mask=inside)
    tl.store(out_ptr + 5 * n + i, (a != b).to(tl.int8), mask=inside)


def conversion(x_ptr, out_ptr, n, HOW: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = i < n
    x = tl.load(x_ptr + i, mask=inside)
    if HOW == "to":
        tl.store(out_ptr + i, x.to(out_ptr.dtype.element_ty), mask=inside)
    elif HOW == "rtz":
        tl.store(out_ptr + i, x.to(out_ptr.dtype.element_ty, fp_downcast_rounding="rtz"), mask=inside)
    else:  # converted by the store itself
        tl.store(out_ptr + i, x, mask=inside)


def literal(out_ptr, LITERAL: tl.constexpr, DTYPE: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, 16), tl.full([16], LITERAL, DTYPE))


def float_arguments(x_ptr, out_ptr, scale, a, b, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.load(x_ptr + i) * scale)  # bf16 x times a float32 parameter: float32
    tl.store(out_ptr + BLOCK, a * b)


def unordered(x_ptr, out_ptr, HOW: tl.constexpr):
    i = tl.arange(0, 16)
    x = tl.load(x_ptr + i)
    if HOW == "sum":
        tl.store(out_ptr, tl.sum(x))
    elif HOW == "cumsum":
        tl.store(out_ptr + i, tl.cumsum(x))
    else:
        tile = tl.load(x_ptr + i[:, None] * 16 + i[None, :])
        tl.store(out_ptr + i[:, None] * 16 + i[None, :], tl.dot(tile, tile))
