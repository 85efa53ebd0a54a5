#pragma once
// The kernels' hot loops are compiled three times: for x86-64-v4 (AVX-512), x86-64-v3 (AVX2,
// FMA, F16C) and the x86-64 baseline; the loader picks the best one the machine runs (GCC
// function multiversioning). One binary then serves a CI machine without AVX and a server with
// AVX-512. The library builds with -ffp-contract=off, so every clone rounds the same
// operations the same way and returns the same bits.
//
// The kernels are templates, and clang 14 cannot multiversion a template: CMake tests whether
// the compiler can (backends/cpu/CMakeLists.txt). Where it cannot, the kernels are built for
// the baseline alone: the same bits, slower on machines with AVX2 or AVX-512.
#ifdef PECONFORM_TEMPLATE_CLONES
#define PECONFORM_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PECONFORM_KERNEL_CLONES
#endif
