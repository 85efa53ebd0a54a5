// The OpenCL backend's factory in a build without the OpenCL headers and ICD loader.
#include "backends/opencl/opencl_tensor_backend.hpp"

#include "spec/spec_error.hpp"

namespace peconform::opencl {

std::unique_ptr<TensorBackend> make_opencl_tensor_backend(std::optional<int>) {
  throw SpecError(
      "this build of peconform has no OpenCL backend: CMake found no OpenCL headers and ICD loader; install them "
      "(Debian: ocl-icd-opencl-dev opencl-c-headers, and pocl-opencl-icd for a CPU device) and rebuild");
}

}  // namespace peconform::opencl
