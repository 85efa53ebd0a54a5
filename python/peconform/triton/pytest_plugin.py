"""pytest plugin: chooses how Triton kernels run before any test module imports triton.

    pytest -p peconform.triton.pytest_plugin --triton-mode=gpu-faithful

(or the same in pytest.ini's addopts). --triton-mode takes auto (the default: compiled where
CUDA is, else gpu-faithful), shipped, gpu-faithful or compiled (docs/triton.md); the header of
the run names the execution, as every report does.
"""
import pytest

import peconform.triton


def pytest_addoption(parser):
    parser.addoption("--triton-mode", default="auto", choices=peconform.triton.MODES,
                     help="how Triton kernels run: auto (compiled where CUDA is, else gpu-faithful), shipped, gpu-faithful, compiled")


def pytest_configure(config):
    try:
        peconform.triton.select(config.getoption("triton_mode"))
    except peconform.triton.TritonModeError as error:
        raise pytest.UsageError(f"--triton-mode: {error}") from error


def pytest_report_header(config):
    return f"triton: {peconform.triton.execution()}"
