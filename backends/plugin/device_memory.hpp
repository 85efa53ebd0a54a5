#pragma once
// Where a device kernel's tensors live during one call (include/peconform/kernel_abi.h,
// pec_kernel.device_type): a device opened once per kernel, one allocation per host buffer
// holding the whole of it (guard elements, padding and sentinels included, so that the campaign
// judges a device kernel's writes exactly as a host kernel's), and the queue or stream the
// kernel is handed in pec_call.stream. OpenCL (kDLOpenCL) when this build has the OpenCL
// runtime, CUDA (kDLCUDA) when it has the CUDA runtime; kDLCPU needs none of it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace peconform::plugin {

// One device allocation, freed with the object.
class DeviceAllocation {
 public:
  virtual ~DeviceAllocation() = default;
  // What DLTensor.data holds: the cl_mem handle (kDLOpenCL) or the device pointer (kDLCUDA).
  virtual void* handle() const = 0;
  // The whole allocation back into `host`, which holds as many bytes as were copied in.
  virtual void copy_out(void* host) const = 0;
};

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // The device as DLPack names it: DLDevice.device_type and device_id.
  virtual std::int32_t device_type() const = 0;
  virtual std::int32_t device_id() const = 0;
  // "OpenCL device 0 (cpu-haswell-..., Portable Computing Language)", for messages.
  virtual std::string description() const = 0;
  // What pec_call.stream holds: the cl_command_queue or the cudaStream_t every copy goes through.
  virtual void* stream() const = 0;
  // A device allocation of `bytes` bytes holding a copy of `host`.
  virtual std::unique_ptr<DeviceAllocation> copy_in(const void* host, std::size_t bytes) = 0;
  // Waits until everything enqueued on stream() has run.
  virtual void synchronize() = 0;
};

// Why this build cannot serve kernels of `device_type` (what it lacks, and what to install),
// or empty when it can.
std::string unserved_device_type(std::int32_t device_type);

// "kDLOpenCL" for 4, and so on.
std::string device_type_name(std::int32_t device_type);

// The device a kernel of `device_type` runs on: the OpenCL device `device` names (else
// PECONFORM_OPENCL_DEVICE's, else 0), or CUDA device `device` (else 0). Throws SpecError naming
// what is missing when there is no such device or no driver to reach it; kDLCPU has no device
// memory (nullptr).
std::unique_ptr<DeviceMemory> open_device_memory(std::int32_t device_type, std::optional<int> device);

}  // namespace peconform::plugin
