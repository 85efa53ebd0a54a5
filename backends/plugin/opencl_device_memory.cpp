#include "backends/plugin/opencl_device_memory.hpp"

#include <dlpack/dlpack.h>
#include <fmt/format.h>

#include "backends/opencl/opencl_runtime.hpp"

namespace peconform::plugin {
namespace {

class OpenClAllocation final : public DeviceAllocation {
 public:
  OpenClAllocation(const opencl::Context& context, const void* host, std::size_t bytes) : buffer_(context, bytes) {
    buffer_.write(host, bytes);
  }
  void* handle() const override { return buffer_.get(); }
  void copy_out(void* host) const override { buffer_.read(host, buffer_.size()); }

 private:
  opencl::DeviceBuffer buffer_;
};

class OpenClMemory final : public DeviceMemory {
 public:
  explicit OpenClMemory(const opencl::DeviceInfo& device) : context_(device) {}

  std::int32_t device_type() const override { return kDLOpenCL; }
  std::int32_t device_id() const override { return context_.device().index; }
  std::string description() const override {
    return fmt::format("OpenCL device {} ({}, {})", context_.device().index, context_.device().name, context_.device().platform_name);
  }
  void* stream() const override { return context_.queue(); }
  std::unique_ptr<DeviceAllocation> copy_in(const void* host, std::size_t bytes) override {
    return std::make_unique<OpenClAllocation>(context_, host, bytes);
  }
  void synchronize() override { context_.finish(); }

 private:
  opencl::Context context_;
};

}  // namespace

std::unique_ptr<DeviceMemory> open_opencl_memory(std::optional<int> device) {
  return std::make_unique<OpenClMemory>(opencl::select_device(device));
}

}  // namespace peconform::plugin
