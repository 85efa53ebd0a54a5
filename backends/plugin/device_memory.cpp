#include "backends/plugin/device_memory.hpp"

#include <dlpack/dlpack.h>
#include <fmt/format.h>

#include "spec/spec_error.hpp"
#ifdef PECONFORM_HAVE_OPENCL
#include "backends/plugin/opencl_device_memory.hpp"
#endif
#ifdef PECONFORM_PLUGIN_HAVE_CUDA
#include "backends/plugin/cuda_device_memory.hpp"
#endif

namespace peconform::plugin {

std::string device_type_name(std::int32_t device_type) {
  switch (device_type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLROCM: return "kDLROCM";
    default: return "an unknown device type";
  }
}

std::string unserved_device_type(std::int32_t device_type) {
  switch (device_type) {
    case kDLCPU: return "";
    case kDLOpenCL:
#ifdef PECONFORM_HAVE_OPENCL
      return "";
#else
      return "this build of peconform has no OpenCL: it was configured without the OpenCL headers and ICD loader "
             "(Debian: ocl-icd-opencl-dev opencl-c-headers; scripts/install-deps.sh installs them)";
#endif
    case kDLCUDA:
#ifdef PECONFORM_PLUGIN_HAVE_CUDA
      return "";
#else
      return "this build of peconform has no CUDA runtime: it was configured without the CUDA toolkit "
             "(CMake's FindCUDAToolkit found no nvcc or libcudart_static)";
#endif
    default:
      return fmt::format("peconform drives kDLCPU ({}), kDLOpenCL ({}) and kDLCUDA ({}) only", static_cast<int>(kDLCPU),
                         static_cast<int>(kDLOpenCL), static_cast<int>(kDLCUDA));
  }
}

std::unique_ptr<DeviceMemory> open_device_memory(std::int32_t device_type, [[maybe_unused]] std::optional<int> device) {
  if (const std::string why = unserved_device_type(device_type); !why.empty()) throw SpecError(why);
  switch (device_type) {
#ifdef PECONFORM_HAVE_OPENCL
    case kDLOpenCL: return open_opencl_memory(device);
#endif
#ifdef PECONFORM_PLUGIN_HAVE_CUDA
    case kDLCUDA: return open_cuda_memory(device);
#endif
    default: return nullptr;  // kDLCPU: the host's own buffers
  }
}

}  // namespace peconform::plugin
