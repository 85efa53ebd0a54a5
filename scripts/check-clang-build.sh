#!/usr/bin/env bash
# Keeps the clang build working (CI runs this after the tests). Compiles every library and tool
# file with Debian 12's clang 14 and warnings as errors, then builds and runs the CPU kernels'
# unit tests, which hold clang's own fp16 storage type (backends/cpu/storage.hpp) to MPFR.
# Unoptimised, and without the other test files, to keep CI under its time limit: finding
# GCC-only C++ needs only the compile, and those files would add half again to its time. The
# CUDA backend is left out (PECONFORM_CUDA=OFF): its kernels are nvcc's to compile, which the
# test build already does, and configuring CUDA again would cost time for two small files.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh clang libclang-rt-14-dev
build=build/clang-check
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DPECONFORM_WARNINGS_AS_ERRORS=ON -DPECONFORM_CUDA=OFF >/dev/null
mapfile -t objects < <(ninja -C "$build" -t targets all | awk -F: '/\.o:/ && !/CMakeTmp/ && !/^tests\// {print $1}')
ninja -C "$build" "${objects[@]}" tests/cpu_kernels_test
"$build/tests/cpu_kernels_test" --gtest_brief=1
