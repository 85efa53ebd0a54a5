"""Triton kernels checked by peconform on a CPU through Triton's interpreter, or compiled on a GPU.

    import peconform.triton
    peconform.triton.select("gpu-faithful")   # before triton is imported
    import my_kernels                          # imports triton; its kernels now run interpreted
    peconform.testing.assert_conforms(peconform.triton.on_device(my_kernels.rope), spec=..., array="torch")

Triton reads TRITON_INTERPRET as each @triton.jit decorates its kernel, so the mode is chosen
before any kernel is defined: select() sets it and imports triton itself, and the pytest plugin
(`-p peconform.triton.pytest_plugin --triton-mode=...`) and `python -m peconform.triton` call it
first. docs/triton.md says what each mode is and what the interpreter is not.
"""
import os
import sys

MODES = ("auto", "shipped", "gpu-faithful", "compiled")

# The triton releases whose interpreter the GPU-faithful rules were read from and verified on
# (gpu_faithful.py; tests/python/test_triton_gpu_faithful.py). Another release may hold bf16
# differently, so the rules refuse it rather than patch what they do not know.
VERIFIED_TRITON = ("3.9.0", )

_INTERPRETED = ("shipped", "gpu-faithful")


class TritonModeError(RuntimeError):
    """The Triton mode asked for cannot be had in this process; the message says why."""


class NotEmulatedError(RuntimeError):
    """The GPU-faithful interpreter met an operation whose GPU result it does not reproduce: one
    that depends on an order it does not emulate, or one compiled Triton refuses to compile."""


_mode = None  # the mode in force: "shipped", "gpu-faithful" or "compiled"; None before select()
_programs = 0  # program instances the interpreter has run in this process


def missing():
    """Why Triton kernels cannot run in this Python, or None when they can: a test skips with it."""
    import importlib.util

    if importlib.util.find_spec("triton") is None:
        return "triton is not installed (pip install torch triton; docs/triton.md)"
    try:
        import torch
    except ImportError:
        return "torch is not installed (pip install torch triton; docs/triton.md)"
    if int(torch.__version__.split(".")[0]) < 2:
        return f"torch {torch.__version__} is older than Triton's interpreter needs (torch 2's untyped storages)"
    return None


def _cuda_device():
    """The CUDA device's name where torch sees one, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda.get_device_name() if torch.cuda.is_available() else None


def _interpreting_now():
    return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")


def _import_triton(mode):
    """Imports triton with TRITON_INTERPRET set for `mode`, or checks the one already imported."""
    interpreted = mode in _INTERPRETED
    if "triton" in sys.modules:
        imported_interpreted = _mode in _INTERPRETED if _mode is not None else _interpreting_now()
        if imported_interpreted != interpreted:
            raise TritonModeError(
                f"{mode}: triton is already imported {'interpreted' if imported_interpreted else 'compiled'}, and each kernel "
                "stays as @triton.jit defined it; call peconform.triton.select() before anything imports triton "
                "(pytest: -p peconform.triton.pytest_plugin --triton-mode=...; scripts: python -m peconform.triton --mode ...)")
    else:
        os.environ["TRITON_INTERPRET"] = "1" if interpreted else "0"
    try:
        import triton
    except ImportError as error:
        raise TritonModeError(f"{mode}: triton is not installed ({error}); pip install torch triton") from error
    return triton


def select(mode="auto"):
    """Chooses how Triton kernels run in this process and returns execution().

    "shipped": Triton's interpreter as it is; "gpu-faithful": the interpreter with bf16 and
    conversions rounding as compiled Triton does on NVIDIA GPUs (triton VERIFIED_TRITON only);
    "compiled": the real GPU (torch.cuda must see one); "auto": compiled where CUDA is, else
    gpu-faithful. The two interpreted modes may be switched between; interpreted and compiled
    may not, once triton is imported. Raises TritonModeError naming the problem.
    """
    global _mode
    if mode not in MODES:
        raise TritonModeError(f"mode {mode!r} is not a Triton mode; expected one of {', '.join(MODES)}")
    if mode == "auto":
        mode = "compiled" if _cuda_device() is not None else "gpu-faithful"
    if mode == "compiled" and _cuda_device() is None:
        raise TritonModeError("compiled: torch sees no CUDA device here (torch.cuda.is_available() is False, or torch is missing); "
                              "choose 'gpu-faithful' or 'shipped' to run the kernels through Triton's interpreter")
    triton = _import_triton(mode)
    if mode == "gpu-faithful" and triton.__version__ not in VERIFIED_TRITON:
        raise TritonModeError(f"gpu-faithful: triton {triton.__version__} is not a release the GPU-faithful interpreter was verified on "
                              f"({', '.join(VERIFIED_TRITON)}); install one of those, or choose 'shipped'")
    if mode in _INTERPRETED:
        from . import gpu_faithful
        _count_programs()
        if mode == "gpu-faithful":
            gpu_faithful.install()
        else:
            gpu_faithful.uninstall()
    _mode = mode
    return execution()


def mode():
    """The mode select() put in force ("shipped", "gpu-faithful", "compiled"), or None."""
    return _mode


def execution():
    """How kernels run in this process, in the words every report carries; None before select()."""
    if _mode is None:
        return None
    import triton
    if _mode == "shipped":
        return f"triton {triton.__version__} interpreter, as shipped"
    if _mode == "gpu-faithful":
        return (f"triton {triton.__version__} interpreter, GPU-faithful (bf16 arithmetic rounded once to nearest even; "
                "conversions to bf16 to nearest even; float arguments in fp32; no fp contraction)")
    fusion = triton.knobs.language.default_fp_fusion and not triton.knobs.language.force_disable_fp_fusion
    return f"triton {triton.__version__} compiled, {_cuda_device()} ({'fp contraction by default' if fusion else 'no fp contraction'})"


def _count_programs():
    """Counts each program instance the interpreter runs (it sets the grid index once per program)."""
    from triton.runtime import interpreter

    builder = interpreter.interpreter_builder
    if "set_grid_idx" in vars(builder):
        return
    set_grid_idx = builder.set_grid_idx

    def counting_set_grid_idx(x, y, z):
        global _programs
        _programs += 1
        return set_grid_idx(x, y, z)

    builder.set_grid_idx = counting_set_grid_idx


def programs_launched():
    """Program instances Triton's interpreter has run in this process since select(), so that a
    caller can bound a check's cost by launches (each costs milliseconds interpreted). Compiled
    launches are not counted (0): on the GPU a program costs microseconds."""
    return _programs


def on_device(fn):
    """`fn` (torch tensors in and out) run where the kernels run: under "compiled", its tensor
    arguments are moved to the GPU, storage, offset and strides as they are (so a strided view
    stays one, and aliasing arguments stay aliased), and what it writes and returns comes back
    to the CPU; under the interpreter, fn itself."""
    if _mode != "compiled":
        return fn
    from .device import run_moved

    def on_gpu(*args, **kwargs):
        return run_moved(fn, args, kwargs, lambda storage: storage.cuda())

    on_gpu.__name__ = getattr(fn, "__name__", "on_gpu")
    on_gpu.__qualname__ = getattr(fn, "__qualname__", on_gpu.__name__)
    return on_gpu
