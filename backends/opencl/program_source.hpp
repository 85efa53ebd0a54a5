#pragma once
// The OpenCL backend's whole program as one OpenCL C text: backends/gpu's element math,
// kernel_args.h and kernels/*.cl, embedded at build time (embed_program_source.cmake). Each
// storage dtype builds it once, with -DPEC_DTYPE=<code>.
#include <string_view>

namespace peconform::opencl {

std::string_view program_source();

}  // namespace peconform::opencl
