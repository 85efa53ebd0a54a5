"""The GPU-faithful interpreter: Triton's interpreter with its numbers made to round as compiled
Triton's do on NVIDIA GPUs (docs/triton.md).

Triton 3.9.0's interpreter (triton/runtime/interpreter.py) holds a bf16 tensor as its uint16 bit
patterns and runs NumPy on them: bf16 add, sub, mul, fma and negation compute on the integers,
comparisons and min/max order them as integers, conversions to bf16 truncate (subnormals wrongly,
a float64 or an integer source into garbage), a bf16 subnormal widens wrongly, and Python float
arguments stay float64 scalars where the compiled kernel takes float32. Each rule below replaces
one of those with what the sm_90 PTX that Triton 3.9.0 compiles does (add.bf16, sub.bf16,
mul.bf16, fma.rn.bf16, xor of the sign bit, cvt.rn.bf16.{f32,f64,f16,s32}, a .f32 parameter),
and what it cannot reproduce (the order of a bf16 reduction or dot) it refuses by name.

The rules are installed together (install()); each can be switched off alone (rule_removed()),
which is how the tests show that every rule is needed. Not emulated: fp contraction (the GPU
fuses a*b + c into an fma; docs/triton.md shows every rotation recipe's bound holds either way),
the GPU's float32 functions (libdevice's sin, cos, log, sqrt and pow, and tl.exp's ex2.approx.f32;
NumPy's run instead), and float32 division, which compiled Triton runs as div.full.f32, an
approximation, where NumPy divides correctly rounded.
"""
import contextlib

import numpy as np
import triton.language as tl
from triton._C.libtriton import ir
from triton.runtime import interpreter

from . import NotEmulatedError
from . import bf16

RULES = {
    "bf16-add": "bf16 + bf16 rounded once to nearest even (add.bf16)",
    "bf16-sub": "bf16 - bf16 rounded once to nearest even (sub.bf16)",
    "bf16-mul": "bf16 * bf16 rounded once to nearest even (mul.bf16)",
    "bf16-fma": "tl.fma on bf16 rounded once to nearest even (fma.rn.bf16)",
    "bf16-neg": "-x on bf16 flips the sign bit",
    "bf16-compare": "<, <=, >, >=, ==, != on bf16 compare values",
    "bf16-min-max": "tl.minimum, tl.maximum on bf16 by value",
    "bf16-clamp": "tl.clamp on bf16 by value",
    "to-bf16": "fp16, fp32, fp64 and integers to bf16 rounded to nearest even (cvt.rn.bf16.*), on .to() and tl.store alike",
    "bf16-to-fp32": "bf16 to fp32 exactly, subnormals included",
    "rtz-downcasts": 'fp_downcast_rounding="rtz" from fp32 to bf16 and fp16 rounds toward zero, subnormals and overflow '
                     "included; from fp64 (to bf16, fp16 or fp32), which compiled Triton refuses, it raises NotEmulatedError",
    "bf16-literals": "a Python float literal in bf16 becomes float32, then six decimals (std::to_string), then bf16, as compiled Triton makes it",
    "fp16-literals": "a Python float literal in fp16 rounds to float32, then to fp16, as compiled Triton makes it",
    "float-arguments": "a Python float kernel argument is a float32 scalar, as compiled Triton's 'fp32' parameter",
    "bf16-unordered-refused": "tl.dot and reductions and scans over bf16 raise NotEmulatedError (the GPU's order is not emulated)",
}

_active = set()  # the rules now in force
_originals = []  # (owner, attribute, had its own attribute, original value), to undo install()


def _on(rule):
    return rule in _active


def _is_bf16(handle):
    return handle.dtype.scalar == tl.bfloat16


def _bf16_handle(bits):
    return interpreter.TensorHandle(bits, tl.bfloat16)


def _binary(original, rule, exact):
    def method(lhs, rhs):
        if _on(rule) and _is_bf16(lhs):
            return _bf16_handle(exact(bf16.widen(lhs.data), bf16.widen(rhs.data)))
        return original(lhs, rhs)

    return method


def _fma(original):
    def create_fma(x, y, z):
        if _on("bf16-fma") and _is_bf16(z):
            return _bf16_handle(bf16.from_fma(bf16.widen(x.data), bf16.widen(y.data), bf16.widen(z.data)))
        return original(x, y, z)

    return create_fma


def _fneg(original):
    def create_fneg(value):
        if _on("bf16-neg") and _is_bf16(value):
            return _bf16_handle(value.data ^ np.uint16(0x8000))
        return original(value)

    return create_fneg


def _comparison(original, compare):
    def method(lhs, rhs):
        if _on("bf16-compare") and _is_bf16(lhs):
            return interpreter.TensorHandle(compare(bf16.widen(lhs.data), bf16.widen(rhs.data)), lhs.dtype.scalar)
        return original(lhs, rhs)

    return method


def _min_max(original, choose):
    def method(lhs, rhs):
        if _on("bf16-min-max") and _is_bf16(lhs):
            # The chosen value is one of the operands (or NaN), so narrowing it back is exact.
            return _bf16_handle(bf16.from_float32(choose(bf16.widen(lhs.data), bf16.widen(rhs.data))))
        return original(lhs, rhs)

    return method


def _clampf(original):
    def create_clampf(value, low, high, propagate_nans):
        if _on("bf16-clamp") and _is_bf16(value):
            x, lo, hi = bf16.widen(value.data), bf16.widen(low.data), bf16.widen(high.data)
            clamped = np.fmin(np.fmax(x, lo), hi) if propagate_nans == ir.PROPAGATE_NAN.NONE else np.clip(x, lo, hi)
            return _bf16_handle(bf16.from_float32(clamped))
        return original(value, low, high, propagate_nans)

    return create_clampf


def _integers_to_bf16(data):
    # An integer is the exact sum of its upper and lower 32 bits, each exact in float64.
    wide = data.astype(np.uint64) if data.dtype == np.uint64 else data.astype(np.int64)
    upper = (wide >> 32) << 32
    return bf16.from_exact_sum(upper.astype(np.float64), (wide - upper).astype(np.float64))


def _cast_impl(original):
    def cast_impl(src, dst_type):
        source, target = src.dtype.scalar, dst_type.scalar
        if _on("to-bf16") and target == tl.bfloat16 and source in (tl.float16, tl.float32, tl.float64):
            return _bf16_handle(bf16.from_float64(src.data.astype(np.float64)))
        if _on("to-bf16") and target == tl.bfloat16 and source.is_int():
            return _bf16_handle(_integers_to_bf16(src.data))
        if _on("bf16-to-fp32") and source == tl.bfloat16 and target == tl.float32:
            return interpreter.TensorHandle(bf16.widen(src.data), tl.float32)
        return original(src, dst_type)

    return cast_impl


def _fp16_toward_zero(values):
    with np.errstate(over="ignore"):
        nearest = values.astype(np.float16)
    # Rounded to nearest away from the value's side of zero: step back one fp16 toward zero
    # (an infinity past the largest finite fp16 steps back to it, as cvt.rz.f16.f32 saturates).
    past = np.abs(nearest.astype(np.float64)) > np.abs(values)
    return np.where(past, np.nextafter(nearest, np.float16(0)), nearest)


def _fp_to_fp(original):
    def create_fp_to_fp(src, dst_type, rounding_mode):
        source, target = src.dtype.scalar, dst_type.scalar
        if _on("rtz-downcasts") and rounding_mode == ir.ROUNDING_MODE.RTZ and source == tl.float64:
            # Into fp32 as well: the interpreter as shipped runs that one, past fp32's range into NaN.
            raise NotEmulatedError(f'fp_downcast_rounding="rtz" from fp64 to {target}: compiled Triton refuses this conversion '
                                   "(its sm_90 lowering: \"Unsupported conversion from f64 to ... with rounding mode rtz\"), "
                                   "so there is no GPU result to reproduce")
        if _on("rtz-downcasts") and rounding_mode == ir.ROUNDING_MODE.RTZ and target in (tl.bfloat16, tl.float16):
            if target == tl.bfloat16:
                return _bf16_handle(bf16.truncate_float32(src.data))
            return interpreter.TensorHandle(_fp16_toward_zero(src.data.astype(np.float64)), tl.float16)
        return original(src, dst_type, rounding_mode)

    return create_fp_to_fp


def _float32(value):
    with np.errstate(over="ignore"):
        return np.float32(value)


def _get_bf16(original):
    def get_bf16(value):
        if _on("bf16-literals"):
            # Triton's builder takes a C float and hands APFloat std::to_string(v), "%f".
            return _bf16_handle(bf16.from_float64(np.array([float("%f" % float(_float32(value)))])))
        return original(value)

    return get_bf16


def _get_fp16(original):
    def get_fp16(value):
        if _on("fp16-literals"):
            return interpreter.TensorHandle(np.array([_float32(value)], dtype=np.float32).astype(np.float16), tl.float16)
        return original(value)

    return get_fp16


def _implicit_cvt(original):
    def implicit_cvt(arg):
        if _on("float-arguments") and isinstance(arg, float):
            return tl.tensor(interpreter.TensorHandle(np.array([_float32(arg)], dtype=np.float32), tl.float32), tl.float32)
        return original(arg)

    return implicit_cvt


def _refuse_unordered(what):
    raise NotEmulatedError(f"{what} over bfloat16: the GPU-faithful interpreter does not emulate the order in which the GPU adds "
                           "(the interpreter as shipped computes it on the bit patterns as integers); accumulate in float32 "
                           "(x.to(tl.float32)), or run this kernel compiled on a GPU")


def _dot(original):
    def create_dot(a, b, d, input_precision, max_num_imprecise_acc):
        if _on("bf16-unordered-refused") and (_is_bf16(a) or _is_bf16(b)):
            _refuse_unordered("tl.dot")
        return original(a, b, d, input_precision, max_num_imprecise_acc)

    return create_dot


def _reduce_or_scan(original, what):
    def apply(self, inputs):
        tensors = inputs if isinstance(inputs, tuple) else (inputs, )
        if _on("bf16-unordered-refused") and any(t.dtype == tl.bfloat16 for t in tensors):
            _refuse_unordered(what)
        return original(self, inputs)

    return apply


def _replacements():
    builder = interpreter.interpreter_builder
    methods = {
        "create_fadd": _binary(builder.create_fadd, "bf16-add", bf16.from_exact_sum),
        "create_fsub": _binary(builder.create_fsub, "bf16-sub", lambda a, b: bf16.from_exact_sum(a, -b)),
        "create_fmul": _binary(builder.create_fmul, "bf16-mul", bf16.from_product),
        "create_fma": _fma(builder.create_fma),
        "create_fneg": _fneg(builder.create_fneg),
        "create_fcmpOLT": _comparison(builder.create_fcmpOLT, np.less),
        "create_fcmpOLE": _comparison(builder.create_fcmpOLE, np.less_equal),
        "create_fcmpOGT": _comparison(builder.create_fcmpOGT, np.greater),
        "create_fcmpOGE": _comparison(builder.create_fcmpOGE, np.greater_equal),
        "create_fcmpOEQ": _comparison(builder.create_fcmpOEQ, np.equal),
        "create_fcmpUNE": _comparison(builder.create_fcmpUNE, np.not_equal),
        "create_minimumf": _min_max(builder.create_minimumf, np.minimum),
        "create_maximumf": _min_max(builder.create_maximumf, np.maximum),
        "create_minnumf": _min_max(builder.create_minnumf, np.fmin),
        "create_maxnumf": _min_max(builder.create_maxnumf, np.fmax),
        "create_clampf": _clampf(builder.create_clampf),
        "cast_impl": _cast_impl(builder.cast_impl),
        "create_fp_to_fp": _fp_to_fp(builder.create_fp_to_fp),
        "get_bf16": _get_bf16(builder.get_bf16),
        "get_fp16": _get_fp16(builder.get_fp16),
        "create_dot": _dot(builder.create_dot),
    }
    return ([(builder, name, method) for name, method in methods.items()] +
            [(interpreter, "_implicit_cvt", _implicit_cvt(interpreter._implicit_cvt)),
             (interpreter.ReduceOps, "apply", _reduce_or_scan(interpreter.ReduceOps.apply, "a reduction (tl.sum, tl.reduce)")),
             (interpreter.ScanOps, "apply", _reduce_or_scan(interpreter.ScanOps.apply, "a scan (tl.cumsum, tl.associative_scan)"))])


def install():
    """Puts every rule in force (once; a second call changes nothing)."""
    if not _originals:
        for owner, name, replacement in _replacements():
            _originals.append((owner, name, name in vars(owner), getattr(owner, name)))
            setattr(owner, name, replacement)
    _active.update(RULES)


def uninstall():
    """Gives the interpreter back as shipped."""
    while _originals:
        owner, name, had_own, original = _originals.pop()
        if had_own:
            setattr(owner, name, original)
        else:
            delattr(owner, name)
    _active.clear()


def installed():
    return bool(_originals)


@contextlib.contextmanager
def rule_removed(rule):
    """The shim without one rule, for as long as the block runs: the tests' proof that it is needed."""
    if rule not in RULES:
        raise KeyError(f"{rule!r} is not a rule of the GPU-faithful interpreter; its rules: {', '.join(RULES)}")
    if rule not in _active:
        raise RuntimeError(f"rule {rule!r} is not in force (peconform.triton.select('gpu-faithful') installs the rules)")
    _active.discard(rule)
    try:
        yield
    finally:
        _active.add(rule)
