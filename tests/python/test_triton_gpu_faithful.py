"""The GPU-faithful interpreter (peconform/triton/gpu_faithful.py), rule by rule, through real
Triton kernels run by Triton's interpreter: each rule's kernel held bit for bit against torch's
bf16 (CPU, round to nearest even) or exact rational arithmetic (exact_rounding.py) where torch
itself rounds twice, every rounding tie constructed; then each rule switched off alone, and the
same kernel seen to go wrong. What compiled Triton does is read from the sm_90 PTX it compiles
here, on the CPU (triton.compile needs no GPU).

Needs torch 2 and triton 3.9.0 (the Torch+Triton venv, docs/triton.md); elsewhere it skips.
"""
from fractions import Fraction
import functools
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import peconform.triton

if peconform.triton.missing():
    pytest.skip(peconform.triton.missing(), allow_module_level=True)
if peconform.triton.mode() is None:
    peconform.triton.select("gpu-faithful")

import torch  # noqa: E402 (after the mode is chosen)
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from exact_rounding import exact_bits  # noqa: E402
from triton_probe_kernels import comparisons, conversion, elementwise, float_arguments, literal, unordered  # noqa: E402
from peconform.triton import bf16, gpu_faithful  # noqa: E402

RANDOM = np.random.default_rng(20261121)
BLOCK = 1024


def setup_module():
    if peconform.triton.mode() != "gpu-faithful":
        pytest.skip(f"these tests need the GPU-faithful interpreter; this run is {peconform.triton.execution()}")


@pytest.fixture(autouse=True)
def same_draws_in_every_test():
    """Each test draws the same inputs, whichever tests run before it."""
    global RANDOM
    RANDOM = np.random.default_rng(20261121)


KERNELS = {f.__name__: triton.jit(f) for f in (elementwise, comparisons, conversion, literal, float_arguments, unordered)}


def launch(name, grid, *args, **constants):
    KERNELS[name][grid](*args, **constants)


def compiled_ptx(requests):
    """The sm_90 PTX compiled Triton makes of each request (triton_ptx.py, in a process of its own)."""
    here = pathlib.Path(__file__).parent
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(here), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, str(here / "triton_ptx.py")], input=json.dumps(requests), capture_output=True, text=True,
                            env=environment, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def bits_of(tensor):
    return tensor.view(torch.int16).numpy().view(np.uint16).copy()


def bf16_tensor(values):
    return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float32)).to(torch.bfloat16)


def run_elementwise(op, a, b, c=None):
    a, b = bf16_tensor(a), bf16_tensor(b)
    c = bf16_tensor(c if c is not None else np.zeros(len(a), np.float32))
    out = torch.empty_like(a)
    launch("elementwise", (triton.cdiv(len(a), BLOCK), ), a, b, c, out, len(a), OP=op, BLOCK=BLOCK)
    return out


def random_bf16(count, low=-40, high=40):
    """bf16 values with exponents in [low, high) and random significands and signs."""
    significands = RANDOM.integers(128, 256, count) / 128.0
    values = np.where(RANDOM.random(count) < 0.5, -1.0, 1.0) * significands * np.ldexp(1.0, RANDOM.integers(low, high, count))
    return values.astype(np.float32)


def sum_ties(count):
    """(a, b) whose exact sum is halfway between two bf16 values: a plus half its ulp."""
    a = random_bf16(count)
    half_ulp = np.ldexp(np.float32(1.0), (np.frexp(np.abs(a))[1] - 9).astype(np.int32)).astype(np.float32)
    return a, np.where(RANDOM.random(count) < 0.5, half_ulp, -half_ulp).astype(np.float32)


def product_ties(count):
    """(a, b) whose exact product is halfway between two bf16 values (about one product in 2^8)."""
    a, b = random_bf16(count << 9, -8, 8), random_bf16(count << 9, -8, 8)
    exact = a.astype(np.float64) * b
    tie = bf16.from_float64(np.nextafter(exact, np.inf)) != bf16.from_float64(np.nextafter(exact, -np.inf))
    return a[tie][:count], b[tie][:count]


def with_specials(values):
    return np.concatenate([values, np.float32([0.0, -0.0, np.inf, -np.inf, 1e-40, -3e-39])])


def torch_bits(result):
    return bits_of(result.to(torch.bfloat16))


def mismatches(ours, expected):
    """Elements whose bits differ, any NaN matching any NaN."""
    ours, expected = np.asarray(ours), np.asarray(expected)
    if ours.dtype == np.uint16 and expected.dtype == np.uint16:
        nan = np.isnan(bf16.widen(ours)) & np.isnan(bf16.widen(expected))
        return int(((ours != expected) & ~nan).sum())
    return int((ours != expected).sum())


# One probe per rule: the number of elements its kernel gets wrong (0 with the rule in force).

def probe_add():
    a, b = sum_ties(3000)
    x, y = with_specials(random_bf16(3000, -130, 128)), with_specials(random_bf16(3000, -130, 128))
    a, b = np.concatenate([a, x, a]), np.concatenate([b, y, random_bf16(3000)])
    return mismatches(bits_of(run_elementwise("add", a, b)), torch_bits(bf16_tensor(a) + bf16_tensor(b)))


def probe_sub():
    a, b = sum_ties(3000)
    a, b = np.concatenate([a, random_bf16(3000, -130, 128)]), np.concatenate([-b, random_bf16(3000, -130, 128)])
    return mismatches(bits_of(run_elementwise("sub", a, b)), torch_bits(bf16_tensor(a) - bf16_tensor(b)))


def probe_mul():
    a, b = product_ties(3000)
    a, b = np.concatenate([a, random_bf16(3000, -70, 70)]), np.concatenate([b, random_bf16(3000, -70, 70)])
    return mismatches(bits_of(run_elementwise("mul", a, b)), torch_bits(bf16_tensor(a) * bf16_tensor(b)))


def probe_fma():
    # a * b a bf16 tie, c far below it: one rounding of the exact a * b + c goes c's way.
    a, b = product_ties(3000)
    c = (np.where(RANDOM.random(len(a)) < 0.5, 1.0, -1.0) * np.ldexp(1.0, RANDOM.integers(-60, -20, len(a)))).astype(np.float32)
    a, b, c = (np.concatenate([u, random_bf16(2000)]) for u in (a, b, c))
    expected = [exact_bits(Fraction(float(u)) * Fraction(float(v)) + Fraction(float(w))) for u, v, w in zip(a, b, c)]
    return mismatches(bits_of(run_elementwise("fma", a, b, c)), np.array(expected, dtype=np.uint16))


def probe_neg():
    a = with_specials(random_bf16(2000, -130, 128))
    return mismatches(bits_of(run_elementwise("neg", a, a)), torch_bits(-bf16_tensor(a)))


def probe_compare():
    a = with_specials(random_bf16(3000))
    b = np.where(RANDOM.random(len(a)) < 0.2, a, with_specials(random_bf16(3000)))  # a fifth equal
    b[-6:] = np.float32([-0.0, 0.0, np.nan, 1.0, np.nan, -1e-40])
    ta, tb = bf16_tensor(a), bf16_tensor(b)
    out = torch.empty(6 * len(a), dtype=torch.int8)
    launch("comparisons", (triton.cdiv(len(a), BLOCK), ), ta, tb, out, len(a), BLOCK=BLOCK)
    expected = torch.cat([ta < tb, ta <= tb, ta > tb, ta >= tb, ta == tb, ta != tb]).to(torch.int8)
    return mismatches(out.numpy(), expected.numpy())


def probe_min_max():
    # Zeros of both signs are left out: which one min(-0, +0) gives is not asserted.
    a, b = random_bf16(3000), random_bf16(3000)
    a[:100], b[100:200] = np.nan, np.nan
    ta, tb = bf16_tensor(a), bf16_tensor(b)
    expected = {"fmin": torch.fmin(ta, tb), "fmax": torch.fmax(ta, tb), "minimum": torch.minimum(ta, tb), "maximum": torch.maximum(ta, tb)}
    return sum(mismatches(bits_of(run_elementwise(op, a, b)), bits_of(value)) for op, value in expected.items())


def probe_clamp():
    # NaN in x and in each bound: by default the PTX's max.bf16 then min.bf16 pass the other
    # operand, with propagate_nan=ALL its max.NaN.bf16 then min.NaN.bf16 the NaN.
    x, low = random_bf16(3000), random_bf16(3000)
    high = np.maximum(low, random_bf16(3000))
    x[:100], low[100:200], high[200:300] = np.nan, np.nan, np.nan
    tx, tlow, thigh = bf16_tensor(x), bf16_tensor(low), bf16_tensor(high)
    expected = {"clamp": torch.fmin(torch.fmax(tx, tlow), thigh), "clamp-propagating-nan": torch.minimum(torch.maximum(tx, tlow), thigh)}
    return sum(mismatches(bits_of(run_elementwise(op, x, low, high)), bits_of(value)) for op, value in expected.items())


def run_conversion(x, out_dtype, how):
    out = torch.empty(len(x), dtype=out_dtype)
    launch("conversion", (triton.cdiv(len(x), BLOCK), ), x, out, len(x), HOW=how, BLOCK=BLOCK)
    return bits_of(out) if out_dtype in (torch.bfloat16, torch.float16) else out.numpy()


def float32_cases():
    ties = ((RANDOM.integers(0, 0x7F7F, 4000, dtype=np.uint32) << 16) | 0x8000).view(np.float32)
    random_bits = RANDOM.integers(0, 1 << 32, 8000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([ties, -ties, random_bits[np.isfinite(random_bits)]])


def float64_cases():
    ties = float32_cases()[:8000].astype(np.float64)
    hair = ties * np.ldexp(1.0, RANDOM.integers(-60, -30, len(ties)))
    return np.concatenate([ties, ties + hair, ties - hair])


def integer_cases(dtype):
    # 2^24 and up a float32 detour rounds first: ties of bf16 there, and a hair off them.
    if dtype == torch.uint64:  # from 2^63, where the bits read as an int64 are negative
        ties = (RANDOM.integers(128, 256, 3000).astype(np.uint64) * 2 + 1) << np.uint64(55)
        return torch.from_numpy(np.concatenate([ties, ties + np.uint64(1), ties - np.uint64(1)]))
    scale = 1 << RANDOM.integers(9, 54 if dtype == torch.int64 else 22, 3000)
    ties = (RANDOM.integers(128, 256, 3000) * 2 + 1) * scale
    values = np.concatenate([ties, ties + 1, ties - 1, -ties, RANDOM.integers(-1000, 1000, 1000)])
    return torch.from_numpy(values.astype(np.int64)).to(dtype)


def probe_to_bf16():
    wrong = 0
    for how in ("to", "store"):
        x32 = float32_cases()
        wrong += mismatches(run_conversion(torch.from_numpy(x32), torch.bfloat16, how), bits_of(torch.from_numpy(x32).to(torch.bfloat16)))
        every16 = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16).view(torch.float16)
        wrong += mismatches(run_conversion(every16, torch.bfloat16, how), bits_of(every16.to(torch.bfloat16)))
        # float64 and 32- and 64-bit integers: torch converts these through float32 (rounding twice), so exact arithmetic judges.
        x64 = float64_cases()
        wrong += mismatches(run_conversion(torch.from_numpy(x64), torch.bfloat16, how),
                            np.array([exact_bits(v, negative_zero=np.signbit(v)) for v in x64], dtype=np.uint16))
        for dtype in (torch.int32, torch.int64, torch.uint64):
            ints = integer_cases(dtype)
            wrong += mismatches(run_conversion(ints, torch.bfloat16, how), np.array([exact_bits(int(v)) for v in ints.numpy()], dtype=np.uint16))
    return wrong


def probe_bf16_to_fp32():
    every = torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).to(torch.int16).view(torch.bfloat16)
    ours = run_conversion(every, torch.float32, "to")
    expected = every.to(torch.float32).numpy()
    return int(((ours.view(np.uint32) != expected.view(np.uint32)) & ~(np.isnan(ours) & np.isnan(expected))).sum())


# Every target compiled Triton refuses "rtz" from float64 into (test_compiled_triton_refuses_rtz_from_fp64).
RTZ_FROM_FP64_REFUSED = (torch.bfloat16, torch.float16, torch.float32)


def probe_rtz_downcasts():
    """Elements wrong from fp32, plus fp64 conversions that ran where compiled Triton refuses them."""
    wrong = 0
    x32 = np.concatenate([float32_cases(), np.float32([7e4, -1e5, 65519.0, 3e38, 1e-8, -2e-45])])
    for dtype, format in ((torch.bfloat16, "bf16"), (torch.float16, "fp16")):
        expected = np.array([exact_bits(float(v), format, toward_zero=True, negative_zero=np.signbit(v)) for v in x32], dtype=np.uint16)
        wrong += mismatches(run_conversion(torch.from_numpy(x32), dtype, "rtz"), expected)
    for dtype in RTZ_FROM_FP64_REFUSED:
        try:
            run_conversion(torch.ones(4, dtype=torch.float64), dtype, "rtz")
            wrong += 1
        except triton.runtime.errors.InterpreterError as error:
            wrong += "NotEmulatedError" not in str(error) or "compiled Triton refuses this conversion" not in str(error)
    return wrong


@functools.lru_cache(maxsize=None)
def compiled_literal_bits(dtype_name, values):
    """The bits compiled Triton gives each literal: the immediate its sm_90 PTX stores."""
    pointer = {"bfloat16": "*bf16", "float16": "*fp16"}[dtype_name]
    requests = [{"kernel": "literal", "signature": {"out_ptr": pointer, "LITERAL": "constexpr", "DTYPE": "constexpr"},
                 "constexprs": {"LITERAL": value, "DTYPE": {"dtype": dtype_name}}} for value in values]
    return [int(re.search(r"mov\.b16\s+%rs\d+, (-?\d+|0x[0-9A-Fa-f]+);", ptx).group(1), 0) & 0xFFFF for ptx in compiled_ptx(requests)]


def interpreted_literal_bits(value, dtype):
    out = torch.empty(16, dtype=torch.bfloat16 if dtype == tl.bfloat16 else torch.float16)
    launch("literal", (1, ), out, LITERAL=value, DTYPE=dtype)
    return int(bits_of(out)[0])


BF16_LITERALS = (3e-7, 1.5e-6, 0.1, 123456.7, 1.0039062500000009, -2.0 / 3.0, 1e-40)
FP16_LITERALS = (1.0004882812500009, 65519.99999999999, 3e-7, 0.1, -2.0 / 3.0)


def probe_literals(dtype, values):
    compiled = compiled_literal_bits(dtype.name.replace("bf16", "bfloat16").replace("fp16", "float16"), values)
    return sum(interpreted_literal_bits(v, dtype) != bits for v, bits in zip(values, compiled))


def probe_float_arguments():
    # compiled Triton passes a Python float as a float32 parameter ("fp32", triton.runtime.jit.mangle_type).
    x = bf16_tensor(random_bf16(16, -4, 4))
    wrong = 0
    for scale, a, b in RANDOM.standard_normal((40, 3)) * 10:
        out = torch.empty(17, dtype=torch.float32)
        launch("float_arguments", (1, ), x, out, float(scale), float(a), float(b), BLOCK=16)
        expected = torch.cat([x.float() * torch.tensor(scale, dtype=torch.float32),
                              (torch.tensor(a, dtype=torch.float32) * torch.tensor(b, dtype=torch.float32)).reshape(1)])
        wrong += mismatches(out.numpy().view(np.uint32), expected.numpy().view(np.uint32))
    return wrong


def probe_unordered_refused():
    """How many of tl.sum, tl.cumsum and tl.dot over bf16 ran rather than being refused (tl.max and
    tl.min widen bf16 to float32 themselves, which is exact)."""
    ran = 0
    x = bf16_tensor(random_bf16(256, -2, 2))
    for how in ("sum", "cumsum", "dot"):
        try:
            launch("unordered", (1, ), x, torch.empty(256, dtype=torch.bfloat16), HOW=how)
            ran += 1
        except triton.runtime.errors.InterpreterError as error:
            assert "NotEmulatedError" in str(error) and "over bfloat16" in str(error), error
    return ran


PROBES = {
    "bf16-add": probe_add,
    "bf16-sub": probe_sub,
    "bf16-mul": probe_mul,
    "bf16-fma": probe_fma,
    "bf16-neg": probe_neg,
    "bf16-compare": probe_compare,
    "bf16-min-max": probe_min_max,
    "bf16-clamp": probe_clamp,
    "to-bf16": probe_to_bf16,
    "bf16-to-fp32": probe_bf16_to_fp32,
    "rtz-downcasts": probe_rtz_downcasts,
    "bf16-literals": lambda: probe_literals(tl.bfloat16, BF16_LITERALS),
    "fp16-literals": lambda: probe_literals(tl.float16, FP16_LITERALS),
    "float-arguments": probe_float_arguments,
    "bf16-unordered-refused": probe_unordered_refused,
}


def test_every_rule_has_a_probe():
    assert set(PROBES) == set(gpu_faithful.RULES)


@pytest.mark.parametrize("rule", list(gpu_faithful.RULES))
def test_the_rule_makes_the_interpreter_agree_bit_for_bit(rule):
    assert PROBES[rule]() == 0


@pytest.mark.parametrize("rule", list(gpu_faithful.RULES))
def test_without_the_rule_the_same_kernel_goes_wrong(rule):
    with gpu_faithful.rule_removed(rule):
        wrong = PROBES[rule]()
    print(f"without {rule}: {wrong} elements wrong")
    assert wrong > 0


def test_fp16_arithmetic_needs_no_rule_numpy_rounds_it_once():
    # NumPy computes fp16 through float32 (24 >= 2 * 11 + 2 bits: one rounding, Figueroa 1995)
    # and the interpreter's fp16 fma through float64, where the exact sum of two fp16 products fits.
    a, b, c = (np.float16(RANDOM.standard_normal(4000) * np.ldexp(1.0, RANDOM.integers(-7, 7, 4000))) for _ in range(3))
    ta, tb, tc = (torch.from_numpy(v) for v in (a, b, c))
    for op, expected in (("add", ta + tb), ("sub", ta - tb), ("mul", ta * tb), ("neg", -ta)):
        out = torch.empty_like(ta)
        launch("elementwise", (triton.cdiv(len(a), BLOCK), ), ta, tb, tc, out, len(a), OP=op, BLOCK=BLOCK)
        assert mismatches(bits_of(out), bits_of(expected)) == 0, op
    out = torch.empty_like(ta)
    launch("elementwise", (triton.cdiv(len(a), BLOCK), ), ta, tb, tc, out, len(a), OP="fma", BLOCK=BLOCK)
    expected = [exact_bits(Fraction(float(u)) * Fraction(float(v)) + Fraction(float(w)), "fp16") for u, v, w in zip(a, b, c)]
    assert mismatches(bits_of(out), np.array(expected, dtype=np.uint16)) == 0


def test_compiled_triton_rounds_as_the_rules_say():
    # The sm_90 PTX of the same kernels: single-rounding bf16 instructions and round-to-nearest
    # conversions, which is what each rule reproduces.
    pointers = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "out_ptr": "*bf16", "n": "i32", "OP": "constexpr", "BLOCK": "constexpr"}
    ops = ("add", "sub", "mul", "fma", "neg", "clamp", "clamp-propagating-nan")
    arithmetic = [{"kernel": "elementwise", "signature": pointers, "constexprs": {"OP": op, "BLOCK": 128}} for op in ops]
    sources = ("*fp32", "*fp64", "*fp16", "*i32", "*i64", "*u32", "*u64")
    conversions = [{"kernel": "conversion", "signature": {"x_ptr": source, "out_ptr": "*bf16", "n": "i32", "HOW": "constexpr", "BLOCK": "constexpr"},
                    "constexprs": {"HOW": "to", "BLOCK": 128}} for source in sources]
    ptx = compiled_ptx(arithmetic + conversions)
    instructions = set(re.findall(r"^\s*((?:add|sub|mul|fma|xor)\.[\w.]+)", "".join(ptx[:5]), re.M))
    assert {"add.bf16", "sub.bf16", "mul.bf16", "fma.rn.bf16", "xor.b16"} <= instructions
    # tl.clamp: max then min, passing a NaN operand by, or propagating it with propagate_nan=ALL.
    ordering = [set(re.findall(r"^\s*((?:min|max)\.[\w.]+)", text, re.M)) for text in ptx[5:7]]
    assert ordering == [{"max.bf16", "min.bf16"}, {"max.NaN.bf16", "min.NaN.bf16"}]
    for source, text in zip(sources, ptx[7:]):
        assert re.findall(r"cvt\.[\w.]+bf16[\w.]*", text) == [f"cvt.rn.bf16.{source[1:].replace('fp', 'f').replace('i', 's')}"], source
    assert triton.runtime.jit.mangle_type(0.1) == "fp32"


def test_compiled_triton_refuses_rtz_from_fp64():
    # The refusals the rtz-downcasts rule reproduces: no sm_90 lowering of an rtz conversion from f64.
    names = {torch.bfloat16: "*bf16", torch.float16: "*fp16", torch.float32: "*fp32"}
    requests = [{"kernel": "conversion", "signature": {"x_ptr": "*fp64", "out_ptr": names[dtype], "n": "i32", "HOW": "constexpr", "BLOCK": "constexpr"},
                 "constexprs": {"HOW": "rtz", "BLOCK": 128}} for dtype in RTZ_FROM_FP64_REFUSED]
    for dtype, compiled in zip(RTZ_FROM_FP64_REFUSED, compiled_ptx(requests)):
        assert isinstance(compiled, dict) and "PassManager::run failed" in compiled["refused"], dtype


def test_programs_launched_counts_each_program_of_the_grid():
    before = peconform.triton.programs_launched()
    launch("literal", (3, 2), torch.empty(16, dtype=torch.bfloat16), LITERAL=1.0, DTYPE=tl.bfloat16)
    assert peconform.triton.programs_launched() - before == 6


def test_the_execution_names_the_mode_and_the_triton_release():
    assert peconform.triton.execution() == (
        f"triton {triton.__version__} interpreter, GPU-faithful (bf16 arithmetic rounded once to nearest even; "
        "conversions to bf16 to nearest even; float arguments in fp32; no fp contraction)")


def test_the_interpreted_modes_switch_in_one_process_and_name_themselves():
    try:
        assert peconform.triton.select("shipped") == f"triton {triton.__version__} interpreter, as shipped"
        assert not gpu_faithful.installed()
        assert bits_of(run_elementwise("mul", np.float32([1.5]), np.float32([2.0])))[0] != bits_of(bf16_tensor([3.0]))[0]
    finally:
        peconform.triton.select("gpu-faithful")
    assert bits_of(run_elementwise("mul", np.float32([1.5]), np.float32([2.0])))[0] == bits_of(bf16_tensor([3.0]))[0]


def test_under_the_interpreter_on_device_is_the_callable_itself():
    def kernel_wrapper(x):
        return x

    assert peconform.triton.on_device(kernel_wrapper) is kernel_wrapper
