"""The ways in that choose Triton's mode before triton is imported (the pytest plugin, python -m
peconform.triton), and on_device's move of a callable's tensors, storage and all. Needs torch 2
and triton (the Torch+Triton venv, docs/triton.md); elsewhere it skips."""
import os
import subprocess
import sys
import textwrap

import pytest

import peconform.triton

if peconform.triton.missing():
    pytest.skip(peconform.triton.missing(), allow_module_level=True)

import torch  # noqa: E402 (torch alone: this process never imports triton)

from peconform.triton.device import run_moved  # noqa: E402


def run_python(args, cwd):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p))
    environment.pop("TRITON_INTERPRET", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=environment, cwd=cwd, timeout=600)


KERNEL_MODULE = textwrap.dedent("""
    import os
    import torch
    import triton
    import triton.language as tl

    import peconform.triton

    @triton.jit
    def times(a_ptr, b_ptr, out_ptr):
        tl.store(out_ptr, tl.load(a_ptr) * tl.load(b_ptr))

    def product(a, b):
        out = torch.empty(1, dtype=a.dtype)
        times[(1, )](a, b, out)
        return out
""")


def test_the_pytest_plugin_chooses_the_mode_before_the_test_module_imports_triton(tmp_path):
    for mode in ("gpu-faithful", "shipped"):
        (tmp_path / "test_kernel.py").write_text(KERNEL_MODULE + textwrap.dedent(f"""
            def test_the_kernel_runs_interpreted_in_the_chosen_mode():
                assert os.environ["TRITON_INTERPRET"] == "1"
                assert peconform.triton.mode() == {mode!r}
                one_and_a_half = torch.tensor([1.5], dtype=torch.bfloat16)
                assert (product(one_and_a_half, one_and_a_half * 2).item() == 4.5) == {mode == "gpu-faithful"}
        """))
        result = run_python(["-m", "pytest", "-p", "no:cacheprovider", "-p", "peconform.triton.pytest_plugin", f"--triton-mode={mode}",
                             "test_kernel.py"], tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "1 passed" in result.stdout
        execution = "as shipped" if mode == "shipped" else "GPU-faithful (bf16 arithmetic rounded once to nearest even;"
        assert f"triton: triton 3.9.0 interpreter, {execution}" in result.stdout


def test_the_runner_chooses_the_mode_then_runs_the_script_as_python_would(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNEL_MODULE)
    (tmp_path / "script.py").write_text(textwrap.dedent("""
        import sys
        import torch
        import kernels  # beside the script, as `python script.py` finds it
        import peconform.triton
        print(peconform.triton.execution())
        print(sys.argv[1:], kernels.product(torch.tensor([3.0]), torch.tensor([0.5])).item())
    """))
    result = run_python(["-m", "peconform.triton", "--mode", "shipped", "script.py", "--cases", "3"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["triton 3.9.0 interpreter, as shipped", "['--cases', '3'] 1.5"]
    printed = run_python(["-m", "peconform.triton", "--mode", "gpu-faithful"], tmp_path)
    assert printed.stdout.startswith("triton 3.9.0 interpreter, GPU-faithful (")


def test_moving_a_callables_tensors_keeps_their_layout_aliasing_and_every_write():
    # What on_device does on a GPU, with a copy on the CPU standing in for the device's memory.
    buffer = torch.arange(40, dtype=torch.float32)
    strided = buffer[4:36].view(4, 8)[:, ::2]  # a view with an offset and a stride of 2
    whole = buffer[4:36].view(4, 8)  # the same storage, another view
    seen = {}

    def kernel_wrapper(x, alias, scale=1.0):
        seen["moved"] = x.untyped_storage().data_ptr() != buffer.untyped_storage().data_ptr()
        seen["aliased"] = x.untyped_storage().data_ptr() == alias.untyped_storage().data_ptr()
        seen["layout"] = (x.storage_offset(), x.stride(), alias.stride())
        x.mul_(scale)  # in place
        torch.empty(0).set_(x.untyped_storage(), 0, (4, ), (1, )).fill_(-1)  # into the guard before the view
        return x, torch.ones(2)

    expected_view = strided * 3
    returned, fresh = run_moved(kernel_wrapper, (strided, whole), {"scale": 3.0}, lambda storage: storage.clone())
    assert seen == {"moved": True, "aliased": True, "layout": (4, (8, 2), (8, 1))}
    assert torch.equal(strided, expected_view)  # the in-place write came back
    assert torch.equal(buffer[:4], torch.full((4, ), -1.0))  # and the write into the guard
    assert returned.untyped_storage().data_ptr() == buffer.untyped_storage().data_ptr()
    assert (returned.storage_offset(), returned.stride()) == (4, (8, 2))
    assert torch.equal(fresh, torch.ones(2))


def test_compiled_names_the_device_and_the_contraction_default(tmp_path):
    # No GPU here: torch's answer is stood in for, to see select("compiled") import triton
    # compiled and name what it runs on.
    code = ("import os, peconform.triton as t; t._cuda_device = lambda: 'NVIDIA H200'; print(t.select('compiled')); "
            "print(os.environ['TRITON_INTERPRET'], t.on_device(len) is len)")
    result = run_python(["-c", code], tmp_path)
    assert result.stdout.splitlines() == ["triton 3.9.0 compiled, NVIDIA H200 (fp contraction by default)", "0 False"], result.stderr
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "0"
    try:
        result = run_python(["-c", code], tmp_path)
    finally:
        del os.environ["TRITON_DEFAULT_FP_FUSION"]
    assert result.stdout.splitlines()[0] == "triton 3.9.0 compiled, NVIDIA H200 (no fp contraction)", result.stderr
