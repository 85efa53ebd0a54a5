"""For the Triton adapters' tests (test_liger_kernel.py, test_flash_attn.py, test_unsloth.py,
test_xformers.py): skip the module where Triton's interpreter cannot run here (Debian's torch 1.13,
no triton: ctest's upstream_matrix_report_test), else put the GPU-faithful mode in force before
anything imports triton, as conformance.py does before it builds a cell's kernel."""
import importlib.util

import pytest


def gpu_faithful_or_skip(*packages):
    """Skips the calling test module, saying what is missing, or selects the GPU-faithful mode.
    `packages`: what the adapter imports besides torch and triton (found, not imported: importing
    them would import triton before the mode is chosen)."""
    import peconform.triton

    missing = peconform.triton.missing()
    if missing:
        pytest.skip(missing, allow_module_level=True)
    for package in packages:
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed (tools/upstream/requirements/)", allow_module_level=True)
    peconform.triton.select("gpu-faithful")
