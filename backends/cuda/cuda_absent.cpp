// The CUDA backend of a build without CUDA (nvcc not found at configure time, or
// PECONFORM_CUDA=OFF): the same functions, each saying so, so that `--backend cuda` and
// `peconform devices` give a clear answer instead of an unknown name.
#include "backends/cuda/cuda_devices.hpp"
#include "backends/cuda/cuda_tensor_backend.hpp"
#include "spec/spec_error.hpp"

namespace peconform::cuda {

namespace {
constexpr const char* kNoCuda =
    "this build of peconform has no CUDA backend: nvcc was not found when it was configured, or PECONFORM_CUDA was OFF "
    "(configure with nvcc on PATH or CMAKE_CUDA_COMPILER=/path/to/nvcc)";
}

CudaDevices cuda_devices() { return {{}, kNoCuda}; }

std::unique_ptr<TensorBackend> make_cuda_tensor_backend(std::optional<int>) { throw SpecError(std::string("--backend cuda: ") + kNoCuda); }

}  // namespace peconform::cuda
