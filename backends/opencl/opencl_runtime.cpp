#include "backends/opencl/opencl_runtime.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <utility>

namespace peconform::opencl {

namespace {

// CL_PLATFORM_NOT_FOUND_KHR (cl_khr_icd): what the ICD loader answers when no vendor driver
// (an .icd file under /etc/OpenCL/vendors) is installed.
constexpr cl_int kPlatformNotFound = -1001;

std::string device_string(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  check(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo");
  std::string text(size, '\0');
  check(clGetDeviceInfo(device, what, size, text.data(), nullptr), "clGetDeviceInfo");
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

template <class T> T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  check(clGetDeviceInfo(device, what, sizeof value, &value, nullptr), "clGetDeviceInfo");
  return value;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo");
  std::string text(size, '\0');
  check(clGetPlatformInfo(platform, what, size, text.data(), nullptr), "clGetPlatformInfo");
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

bool has_extension(const std::string& extensions, const std::string& name) {
  std::size_t at = 0;
  while ((at = extensions.find(name, at)) != std::string::npos) {
    const std::size_t end = at + name.size();
    const bool starts = at == 0 || extensions[at - 1] == ' ';
    const bool ends = end == extensions.size() || extensions[end] == ' ';
    if (starts && ends) return true;
    at = end;
  }
  return false;
}

std::string type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

}  // namespace

std::string error_name(cl_int status) {
  switch (status) {
#define PECONFORM_CL_ERROR(name) \
  case name: return #name;
    PECONFORM_CL_ERROR(CL_SUCCESS)
    PECONFORM_CL_ERROR(CL_DEVICE_NOT_FOUND)
    PECONFORM_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    PECONFORM_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    PECONFORM_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    PECONFORM_CL_ERROR(CL_OUT_OF_RESOURCES)
    PECONFORM_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    PECONFORM_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    PECONFORM_CL_ERROR(CL_MEM_COPY_OVERLAP)
    PECONFORM_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    PECONFORM_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    PECONFORM_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    PECONFORM_CL_ERROR(CL_MAP_FAILURE)
    PECONFORM_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    PECONFORM_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    PECONFORM_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    PECONFORM_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    PECONFORM_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    PECONFORM_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    PECONFORM_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    PECONFORM_CL_ERROR(CL_INVALID_VALUE)
    PECONFORM_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    PECONFORM_CL_ERROR(CL_INVALID_PLATFORM)
    PECONFORM_CL_ERROR(CL_INVALID_DEVICE)
    PECONFORM_CL_ERROR(CL_INVALID_CONTEXT)
    PECONFORM_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    PECONFORM_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    PECONFORM_CL_ERROR(CL_INVALID_HOST_PTR)
    PECONFORM_CL_ERROR(CL_INVALID_MEM_OBJECT)
    PECONFORM_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    PECONFORM_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    PECONFORM_CL_ERROR(CL_INVALID_SAMPLER)
    PECONFORM_CL_ERROR(CL_INVALID_BINARY)
    PECONFORM_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    PECONFORM_CL_ERROR(CL_INVALID_PROGRAM)
    PECONFORM_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    PECONFORM_CL_ERROR(CL_INVALID_KERNEL_NAME)
    PECONFORM_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    PECONFORM_CL_ERROR(CL_INVALID_KERNEL)
    PECONFORM_CL_ERROR(CL_INVALID_ARG_INDEX)
    PECONFORM_CL_ERROR(CL_INVALID_ARG_VALUE)
    PECONFORM_CL_ERROR(CL_INVALID_ARG_SIZE)
    PECONFORM_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    PECONFORM_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    PECONFORM_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    PECONFORM_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    PECONFORM_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    PECONFORM_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    PECONFORM_CL_ERROR(CL_INVALID_EVENT)
    PECONFORM_CL_ERROR(CL_INVALID_OPERATION)
    PECONFORM_CL_ERROR(CL_INVALID_GL_OBJECT)
    PECONFORM_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    PECONFORM_CL_ERROR(CL_INVALID_MIP_LEVEL)
    PECONFORM_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    PECONFORM_CL_ERROR(CL_INVALID_PROPERTY)
    PECONFORM_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    PECONFORM_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    PECONFORM_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    PECONFORM_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef PECONFORM_CL_ERROR
    case kPlatformNotFound: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return fmt::format("unknown OpenCL error {}", status);
  }
}

OpenClError::OpenClError(const std::string& call, cl_int status, const std::string& detail)
    : std::runtime_error(fmt::format("{} failed: {} ({}){}{}", call, error_name(status), status, detail.empty() ? "" : "\n",
                                     detail)) {}

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw OpenClError(call, status);
}

std::vector<DeviceInfo> list_devices() {
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  if (status == kPlatformNotFound || (status == CL_SUCCESS && platform_count == 0)) return {};
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");

  std::vector<DeviceInfo> devices;
  for (cl_platform_id platform : platforms) {
    cl_uint device_count = 0;
    const cl_int found = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (found == CL_DEVICE_NOT_FOUND || device_count == 0) continue;
    check(found, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(device_count);
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, ids.data(), nullptr), "clGetDeviceIDs");
    const std::string platform_name = platform_string(platform, CL_PLATFORM_NAME);
    for (cl_device_id id : ids) {
      DeviceInfo info;
      info.index = static_cast<int>(devices.size());
      info.platform = platform;
      info.device = id;
      info.name = device_string(id, CL_DEVICE_NAME);
      info.platform_name = platform_name;
      info.version = device_string(id, CL_DEVICE_VERSION);
      info.driver_version = device_string(id, CL_DRIVER_VERSION);
      info.type = type_name(device_value<cl_device_type>(id, CL_DEVICE_TYPE));
      const std::string extensions = device_string(id, CL_DEVICE_EXTENSIONS);
      info.fp64 = has_extension(extensions, "cl_khr_fp64");
      info.fp16 = has_extension(extensions, "cl_khr_fp16");
      info.global_memory = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
      info.largest_allocation = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      info.compute_units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
      devices.push_back(std::move(info));
    }
  }
  return devices;
}

DeviceInfo select_device(std::optional<int> index) {
  std::string source = "--device";
  if (!index) {
    if (const char* text = std::getenv(kDeviceEnvironment); text != nullptr && *text != '\0') {
      char* end = nullptr;
      const long value = std::strtol(text, &end, 10);
      if (*end != '\0' || value < 0 || value > 1'000'000)
        throw OpenClUnavailable(fmt::format("{}='{}' is not a device index (a non-negative integer)", kDeviceEnvironment, text));
      index = static_cast<int>(value);
      source = kDeviceEnvironment;
    } else {
      index = 0;
      source = "the default device";
    }
  }
  const std::vector<DeviceInfo> devices = list_devices();
  if (devices.empty())
    throw OpenClUnavailable(
        "no OpenCL platform found: the ICD loader (libOpenCL.so.1, Debian ocl-icd-libopencl1) lists no driver under "
        "/etc/OpenCL/vendors; install one (Debian: pocl-opencl-icd for the CPU, or a GPU vendor's) and check `clinfo -l`");
  if (*index < 0 || *index >= static_cast<int>(devices.size()))
    throw OpenClUnavailable(fmt::format("OpenCL device {} (from {}) does not exist: valid indices are 0 to {} "
                                        "(`peconform devices` lists them)",
                                        *index, source, devices.size() - 1));
  return devices[static_cast<std::size_t>(*index)];
}

Context::Context(const DeviceInfo& device) : device_(device) {
  cl_int status = CL_SUCCESS;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(device.platform), 0};
  context_ = clCreateContext(properties, 1, &device_.device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  queue_ = clCreateCommandQueue(context_, device_.device, 0, &status);
  if (status != CL_SUCCESS) {
    release();
    throw OpenClError("clCreateCommandQueue", status);
  }
}

Context::~Context() { release(); }

Context::Context(Context&& other) noexcept
    : device_(std::move(other.device_)), context_(std::exchange(other.context_, nullptr)),
      queue_(std::exchange(other.queue_, nullptr)) {}

Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::move(other.device_);
    context_ = std::exchange(other.context_, nullptr);
    queue_ = std::exchange(other.queue_, nullptr);
  }
  return *this;
}

void Context::release() noexcept {
  if (queue_ != nullptr) clReleaseCommandQueue(queue_);
  if (context_ != nullptr) clReleaseContext(context_);
  queue_ = nullptr;
  context_ = nullptr;
}

void Context::finish() const { check(clFinish(queue_), "clFinish"); }

DeviceBuffer::DeviceBuffer(const Context& context, std::size_t bytes) : queue_(context.queue()), bytes_(bytes) {
  if (bytes == 0) throw std::logic_error("a device buffer of 0 bytes");
  cl_int status = CL_SUCCESS;
  memory_ = clCreateBuffer(context.context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status != CL_SUCCESS) throw OpenClError("clCreateBuffer", status, fmt::format("{} bytes", bytes));
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : queue_(other.queue_), memory_(std::exchange(other.memory_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    queue_ = other.queue_;
    memory_ = std::exchange(other.memory_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (memory_ != nullptr) clReleaseMemObject(memory_);
  memory_ = nullptr;
}

void DeviceBuffer::write(const void* data, std::size_t bytes) {
  if (bytes != bytes_) throw std::logic_error(fmt::format("writing {} bytes into a device buffer of {}", bytes, bytes_));
  check(clEnqueueWriteBuffer(queue_, memory_, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
}

void DeviceBuffer::read(void* data, std::size_t bytes) const {
  if (bytes != bytes_) throw std::logic_error(fmt::format("reading {} bytes from a device buffer of {}", bytes, bytes_));
  check(clEnqueueReadBuffer(queue_, memory_, CL_TRUE, 0, bytes, data, 0, nullptr, nullptr), "clEnqueueReadBuffer");
}

void DeviceBuffer::write_at(std::size_t offset, const void* data, std::size_t bytes) {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw std::logic_error(fmt::format("writing bytes {}..{} of a device buffer of {}", offset, offset + bytes, bytes_));
  if (bytes == 0) return;
  check(clEnqueueWriteBuffer(queue_, memory_, CL_TRUE, offset, bytes, data, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
}

void DeviceBuffer::enqueue_write_at(std::size_t offset, const void* data, std::size_t bytes) {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw std::logic_error(fmt::format("writing bytes {}..{} of a device buffer of {}", offset, offset + bytes, bytes_));
  if (bytes == 0) return;
  check(clEnqueueWriteBuffer(queue_, memory_, CL_FALSE, offset, bytes, data, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
}

void DeviceBuffer::read_at(std::size_t offset, void* data, std::size_t bytes) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw std::logic_error(fmt::format("reading bytes {}..{} of a device buffer of {}", offset, offset + bytes, bytes_));
  if (bytes == 0) return;
  check(clEnqueueReadBuffer(queue_, memory_, CL_TRUE, offset, bytes, data, 0, nullptr, nullptr), "clEnqueueReadBuffer");
}

Kernel::~Kernel() {
  if (kernel_ != nullptr) clReleaseKernel(kernel_);
}

Kernel::Kernel(Kernel&& other) noexcept : kernel_(std::exchange(other.kernel_, nullptr)) {}

Kernel& Kernel::operator=(Kernel&& other) noexcept {
  if (this != &other) {
    if (kernel_ != nullptr) clReleaseKernel(kernel_);
    kernel_ = std::exchange(other.kernel_, nullptr);
  }
  return *this;
}

void Kernel::set_raw_arg(cl_uint index, std::size_t size, const void* value) {
  const cl_int status = clSetKernelArg(kernel_, index, size, value);
  if (status != CL_SUCCESS) throw OpenClError("clSetKernelArg", status, fmt::format("argument {}", index));
}

void Kernel::launch(const Context& context, const std::array<std::size_t, 3>& items) const {
  if (items[0] == 0 || items[1] == 0 || items[2] == 0) return;
  check(clEnqueueNDRangeKernel(context.queue(), kernel_, 3, nullptr, items.data(), nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
}

Program::Program(const Context& context, const std::string& source, const std::string& options) {
  cl_int status = CL_SUCCESS;
  const char* text = source.c_str();
  const std::size_t length = source.size();
  program_ = clCreateProgramWithSource(context.context(), 1, &text, &length, &status);
  check(status, "clCreateProgramWithSource");
  cl_device_id device = context.device().device;
  status = clBuildProgram(program_, 1, &device, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    std::size_t size = 0;
    std::string log;
    if (clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) == CL_SUCCESS) {
      log.resize(size);
      clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      while (!log.empty() && log.back() == '\0') log.pop_back();
    }
    clReleaseProgram(program_);
    program_ = nullptr;
    throw OpenClError("clBuildProgram", status, fmt::format("options: {}\nbuild log:\n{}", options, log));
  }
}

Program::~Program() {
  if (program_ != nullptr) clReleaseProgram(program_);
}

Program::Program(Program&& other) noexcept : program_(std::exchange(other.program_, nullptr)) {}

Program& Program::operator=(Program&& other) noexcept {
  if (this != &other) {
    if (program_ != nullptr) clReleaseProgram(program_);
    program_ = std::exchange(other.program_, nullptr);
  }
  return *this;
}

Kernel Program::kernel(const char* name) const {
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program_, name, &status);
  if (status != CL_SUCCESS) throw OpenClError("clCreateKernel", status, name);
  return Kernel(kernel);
}

}  // namespace peconform::opencl
