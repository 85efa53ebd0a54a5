"""peconform.triton.select() and its entry points refusing what cannot be had, each by name. These
need no Triton (a stand-in package plays an old or already imported one) and run in CI; the
modes themselves run in test_triton_gpu_faithful.py."""
import os
import subprocess
import sys
import textwrap

import pytest

import peconform.triton


def run_python(args, tmp_path, stand_in=None):
    """python ARGS in a fresh interpreter (select() holds for a process), TRITON_INTERPRET unset,
    with a stand-in `triton` package (its __init__.py source) first on the path when given."""
    path = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if stand_in is not None:
        (tmp_path / "triton").mkdir()
        (tmp_path / "triton" / "__init__.py").write_text(stand_in)
        path.insert(0, str(tmp_path))
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    environment.pop("TRITON_INTERPRET", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=300)


def no_cuda():
    try:
        import torch
    except ImportError:
        return True
    return not torch.cuda.is_available()


def test_an_unknown_mode_is_refused_naming_it_and_the_modes():
    before = peconform.triton.execution()  # None in a fresh process; a refusal changes nothing either way
    with pytest.raises(peconform.triton.TritonModeError, match=r"mode 'gpu' is not a Triton mode; expected one of auto, shipped, gpu-faithful, compiled"):
        peconform.triton.select("gpu")
    assert issubclass(peconform.triton.TritonModeError, RuntimeError)
    assert peconform.triton.execution() == before


@pytest.mark.skipif(not no_cuda(), reason="this machine has a CUDA device")
def test_compiled_without_a_cuda_device_is_refused_by_name():
    before = peconform.triton.execution()
    with pytest.raises(peconform.triton.TritonModeError, match=r"compiled: torch sees no CUDA device here"):
        peconform.triton.select("compiled")
    assert peconform.triton.execution() == before


def test_gpu_faithful_refuses_a_triton_release_it_was_not_verified_on(tmp_path):
    result = run_python(["-c", "import peconform.triton as t; t.select('gpu-faithful')"], tmp_path, stand_in="__version__ = '3.8.0'\n")
    assert result.returncode != 0
    assert ("TritonModeError: gpu-faithful: triton 3.8.0 is not a release the GPU-faithful interpreter was verified on (3.9.0); "
            "install one of those, or choose 'shipped'") in result.stderr


def test_an_interpreted_mode_is_refused_once_triton_is_imported_compiled(tmp_path):
    code = "import triton; import peconform.triton as t; t.select('gpu-faithful')"
    result = run_python(["-c", code], tmp_path, stand_in="__version__ = '3.9.0'\n")
    assert result.returncode != 0
    assert "TritonModeError: gpu-faithful: triton is already imported compiled, and each kernel stays as @triton.jit defined it" in result.stderr


def test_select_sets_the_interpreter_before_it_imports_triton(tmp_path):
    # The stand-in records TRITON_INTERPRET as it is imported, as @triton.jit reads it.
    code = textwrap.dedent("""
        import peconform.triton as t
        try:
            t.select('shipped')
        except ImportError:
            pass  # the stand-in has no interpreter to count programs with
        import triton
        print(triton.interpret_at_import)
    """)
    stand_in = "import os\n__version__ = '3.9.0'\ninterpret_at_import = os.environ.get('TRITON_INTERPRET')\n"
    result = run_python(["-c", code], tmp_path, stand_in=stand_in)
    assert result.stdout.strip() == "1", result.stderr


@pytest.mark.skipif(not no_cuda(), reason="this machine has a CUDA device")
def test_the_pytest_plugin_refuses_a_mode_it_cannot_have_before_any_test_runs(tmp_path):
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    plugin = ["-m", "pytest", "-p", "no:cacheprovider", "-p", "peconform.triton.pytest_plugin"]
    result = run_python(plugin + ["--triton-mode=compiled", "test_nothing.py"], tmp_path)
    assert result.returncode == 4  # pytest's usage error
    assert "--triton-mode: compiled: torch sees no CUDA device here" in result.stderr
    bad = run_python(plugin + ["--triton-mode=gpu", "test_nothing.py"], tmp_path)
    assert bad.returncode == 4
    assert "--triton-mode: invalid choice: 'gpu'" in bad.stderr


@pytest.mark.skipif(not no_cuda(), reason="this machine has a CUDA device")
def test_the_runner_refuses_a_mode_it_cannot_have(tmp_path):
    result = run_python(["-m", "peconform.triton", "--mode", "compiled"], tmp_path)
    assert result.returncode == 2
    assert "python -m peconform.triton: compiled: torch sees no CUDA device here" in result.stderr
