"""Compiles kernels of triton_probe_kernels.py for sm_90 and prints their PTX: what compiled Triton
does, read on a CPU (triton.compile needs no GPU), in a process of its own because Triton's
interpreter leaves triton.language patched for itself once it has run a kernel.

Input (stdin): a JSON list of {"kernel": NAME, "signature": {...}, "constexprs": {...}}, where a
constexpr written {"dtype": "bfloat16"} is that triton.language dtype. Output: a JSON list, for
each request its PTX, or {"refused": the compiler's error} where triton.compile raises.
"""
import json
import os
import sys

os.environ.pop("TRITON_INTERPRET", None)

import triton  # noqa: E402 (compiled, whatever the caller's mode)
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

import triton_probe_kernels  # noqa: E402


def constant(value):
    return getattr(tl, value["dtype"]) if isinstance(value, dict) else value


def main():
    ptx = []
    for request in json.load(sys.stdin):
        source = ASTSource(fn=JITFunction(getattr(triton_probe_kernels, request["kernel"])), signature=request["signature"],
                           constexprs={name: constant(value) for name, value in request["constexprs"].items()})
        try:
            ptx.append(triton.compile(source, target=GPUTarget("cuda", 90, 32)).asm["ptx"])
        except RuntimeError as error:  # what compiled Triton refuses is a fact the tests assert too
            ptx.append({"refused": str(error)})
    json.dump(ptx, sys.stdout)


if __name__ == "__main__":
    main()
