#pragma once
// The OpenCL host API as the OpenCL backend and the device side of the plugin ABI use it: the
// devices of every platform under one global index (the order `peconform devices` prints), the
// device a run picks, a context with its in-order queue, whole-buffer copies and programs built
// from source. Every failed call throws with the call and the error's name, so that a report
// says "clBuildProgram: CL_BUILD_PROGRAM_FAILURE" rather than a bare -11.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "spec/spec_error.hpp"

namespace peconform::opencl {

// A failed OpenCL call: the program's fault or the driver's (exit 3 from the command line).
class OpenClError : public std::runtime_error {
 public:
  OpenClError(const std::string& call, cl_int status, const std::string& detail = {});
};

// No OpenCL to run on, or a device index that names none: the user's setup or input, so a
// SpecError (exit 2), with what to install or which indices exist.
class OpenClUnavailable : public SpecError {
 public:
  using SpecError::SpecError;
};

// CL_INVALID_VALUE for -30, and so on; "unknown OpenCL error <n>" for a code no header names.
std::string error_name(cl_int status);
// Throws OpenClError naming `call` unless status is CL_SUCCESS.
void check(cl_int status, const char* call);

struct DeviceInfo {
  int index = 0;  // global: platforms in the ICD loader's order, each platform's devices in turn
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string name, platform_name, version, driver_version, type;
  bool fp64 = false;  // cl_khr_fp64
  bool fp16 = false;  // cl_khr_fp16 (arithmetic in half; storage through vload_half needs none)
  std::uint64_t global_memory = 0, largest_allocation = 0;
  std::uint32_t compute_units = 0;
};

// Every device of every platform; empty when the ICD loader finds no platform.
std::vector<DeviceInfo> list_devices();

// Where the index of the device to use comes from when a command is given none.
inline constexpr const char* kDeviceEnvironment = "PECONFORM_OPENCL_DEVICE";

// The device `index` names, else PECONFORM_OPENCL_DEVICE's, else device 0. Throws
// OpenClUnavailable when there is no platform (naming the ICD loader and pocl-opencl-icd), when
// the index is out of range (naming it and the valid range) or the variable is not an integer.
DeviceInfo select_device(std::optional<int> index);

// A context on one device with an in-order queue. Move-only.
class Context {
 public:
  explicit Context(const DeviceInfo& device);
  ~Context();
  Context(Context&& other) noexcept;
  Context& operator=(Context&& other) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& device() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  // Waits for everything enqueued.
  void finish() const;

 private:
  void release() noexcept;
  DeviceInfo device_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

// A device buffer of a fixed size, written and read whole through the context's queue
// (blocking). Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer(const Context& context, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // `bytes` must be the buffer's size: a partial copy is a bug of the caller (std::logic_error).
  void write(const void* data, std::size_t bytes);
  void read(void* data, std::size_t bytes) const;
  // `bytes` from byte `offset` on, for a buffer kept and reused by calls of different sizes;
  // a range past the end is a bug of the caller (std::logic_error).
  void write_at(std::size_t offset, const void* data, std::size_t bytes);
  void read_at(std::size_t offset, void* data, std::size_t bytes) const;
  // write_at without waiting for the copy: `data` must stay valid until the queue has run it
  // (a later blocking read or Context::finish()). Saves a round trip per buffer.
  void enqueue_write_at(std::size_t offset, const void* data, std::size_t bytes);
  cl_mem get() const { return memory_; }
  std::size_t size() const { return bytes_; }

 private:
  void release() noexcept;
  cl_command_queue queue_ = nullptr;
  cl_mem memory_ = nullptr;
  std::size_t bytes_ = 0;
};

// A kernel of a built program. Move-only.
class Kernel {
 public:
  explicit Kernel(cl_kernel kernel) : kernel_(kernel) {}
  ~Kernel();
  Kernel(Kernel&& other) noexcept;
  Kernel& operator=(Kernel&& other) noexcept;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  template <class T> void set_arg(cl_uint index, const T& value) { set_raw_arg(index, sizeof(T), &value); }
  void set_buffer(cl_uint index, const DeviceBuffer& buffer) {
    const cl_mem memory = buffer.get();
    set_raw_arg(index, sizeof memory, &memory);
  }
  void set_raw_arg(cl_uint index, std::size_t size, const void* value);
  // A 3-D launch of items[0] x items[1] x items[2] work-items (none when any is zero): a
  // kernel reads its coordinates from get_global_id(0..2) instead of dividing a flat index.
  void launch(const Context& context, const std::array<std::size_t, 3>& items) const;
  cl_kernel get() const { return kernel_; }

 private:
  cl_kernel kernel_ = nullptr;
};

// A program built from source for the context's device. Move-only.
class Program {
 public:
  // Throws OpenClError with the build log when the source does not build.
  Program(const Context& context, const std::string& source, const std::string& options);
  ~Program();
  Program(Program&& other) noexcept;
  Program& operator=(Program&& other) noexcept;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  Kernel kernel(const char* name) const;
  cl_program get() const { return program_; }

 private:
  cl_program program_ = nullptr;
};

}  // namespace peconform::opencl
