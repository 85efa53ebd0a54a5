#include "backends/plugin/plugin_tensor_backend.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>

#include "backends/plugin/abi_spec.hpp"
#include "backends/plugin/device_memory.hpp"
#include "backends/plugin/dl_tensor_view.hpp"
#include "spec/spec_error.hpp"

namespace peconform::plugin {
namespace {

// A device kernel's copies of a call's buffers: each host buffer whole in a device allocation,
// a view's data its handle and byte_offset its origin, and every buffer read back whole after
// the call, the inputs and ids too, so that a write anywhere on the device shows on the host.
class DeviceCopies {
 public:
  explicit DeviceCopies(DeviceMemory& memory) : memory_(memory) {}
  // Waits for the device before the allocations go, whatever the kernel left enqueued.
  ~DeviceCopies() {
    try {
      memory_.synchronize();
    } catch (...) {  // the call's own error, if any, is the one reported
    }
  }
  DeviceCopies(const DeviceCopies&) = delete;
  DeviceCopies& operator=(const DeviceCopies&) = delete;

  // Points `tensor` (a view of `buffer`) at the device copy of `buffer`, made on its first use.
  void place(DLTensor& tensor, Buffer& buffer) {
    tensor.data = copy_of(buffer.bytes.data(), buffer.bytes.size());
    tensor.byte_offset = static_cast<std::uint64_t>(buffer.origin) * element_size(buffer.type);
    tensor.device = {static_cast<DLDeviceType>(memory_.device_type()), memory_.device_id()};
  }
  void place_ids(DLTensor& ids, void* host, std::size_t bytes) {
    ids.data = copy_of(host, bytes);
    ids.device = {static_cast<DLDeviceType>(memory_.device_type()), memory_.device_id()};
  }
  void copy_back() {
    memory_.synchronize();
    for (const Copy& copy : copies_) copy.device->copy_out(copy.host);
  }

 private:
  void* copy_of(void* host, std::size_t bytes) {
    if (bytes == 0) return nullptr;
    for (const Copy& copy : copies_)
      if (copy.host == host) return copy.device->handle();
    copies_.push_back({host, memory_.copy_in(host, bytes)});
    return copies_.back().device->handle();
  }
  struct Copy {
    void* host;
    std::unique_ptr<DeviceAllocation> device;
  };
  DeviceMemory& memory_;
  std::vector<Copy> copies_;
};

class PluginTensorBackend final : public TensorBackend {
 public:
  PluginTensorBackend(std::shared_ptr<const PluginLibrary> library, std::size_t kernel, std::optional<int> device)
      : library_(std::move(library)), kernel_(library_->kernels().at(kernel)) {
    if (!kernel_.served()) throw SpecError(fmt::format("kernel '{}' of plugin '{}' is refused: {}", kernel_.name, library_->path(), kernel_.refusal));
    try {
      device_ = open_device_memory(kernel_.device_type, device);
    } catch (const SpecError& error) {
      throw SpecError(fmt::format("kernel '{}' of plugin '{}' runs on {}: {}", kernel_.name, library_->path(),
                                  device_type_name(kernel_.device_type), error.what()));
    }
  }

  std::string name() const override { return kernel_.name; }

  BackendCapabilities capabilities() const override {
    BackendCapabilities capabilities;
    for (const SpecPattern& pattern : kernel_.patterns)
      if (std::find(capabilities.families.begin(), capabilities.families.end(), pattern.family()) == capabilities.families.end())
        capabilities.families.push_back(pattern.family());
    capabilities.dtypes = {Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
    capabilities.precisions = {PrecisionClass::exact_angle, PrecisionClass::fp32_angle, PrecisionClass::lowp_cache,
                              PrecisionClass::fp64_angle};
    // Without a limit of its own, a plugin is drawn the calls our CPU kernels are.
    capabilities.largest_call_elements = kernel_.largest_call_elements > 0 ? kernel_.largest_call_elements : std::int64_t{1} << 32;
    capabilities.patterns = kernel_.patterns;
    capabilities.takes = kernel_.calls_taken();
    // One context and queue (or stream), made on this thread.
    capabilities.calling_thread_only = device_ != nullptr;
    return capabilities;
  }

  void run(KernelCall& call) const override {
    if (std::none_of(kernel_.patterns.begin(), kernel_.patterns.end(), [&](const SpecPattern& p) { return p.admits(call.spec); }))
      throw SpecError(fmt::format("kernel '{}' does not serve {}: it serves {}", kernel_.name, call.spec.canonical(), kernel_.spec_patterns));
    const AbiSpec spec(call.spec);
    const Family family = call.spec.family;
    const std::size_t operands = call.outputs.size();
    std::vector<TensorView> inputs(call.inputs.size()), outputs(operands);
    for (std::size_t o = 0; o < call.inputs.size(); ++o)
      view_of(inputs[o], call.in_place ? call.outputs[o] : call.inputs[o], call.spec.dtype, shown_axes(family, true));
    for (std::size_t o = 0; o < operands; ++o) view_of(outputs[o], call.outputs[o], call.spec.dtype, shown_axes(family, false));
    std::vector<DLTensor> input_tensors, output_tensors;
    for (const TensorView& view : inputs) input_tensors.push_back(view.tensor);
    for (const TensorView& view : outputs) output_tensors.push_back(view.tensor);

    std::array<std::int64_t, 3> id_shape{call.axes, call.batch, call.seq};
    std::array<std::int64_t, 3> id_strides{call.batch * call.seq, call.seq, 1};
    DLTensor ids{};
    ids.data = call.ids64 ? static_cast<void*>(call.ids64_data.data()) : static_cast<void*>(call.ids32_data.data());
    ids.device = {kDLCPU, 0};
    ids.ndim = 3;
    ids.dtype = call.ids64 ? DLDataType{kDLInt, 64, 1} : DLDataType{kDLInt, 32, 1};
    ids.shape = id_shape.data();
    ids.strides = id_strides.data();
    const bool has_ids = is_rotary(family) || family == Family::learned;
    std::optional<DeviceCopies> copies;
    if (device_ != nullptr) {
      copies.emplace(*device_);
      for (std::size_t o = 0; o < call.inputs.size(); ++o)
        copies->place(input_tensors[o], call.in_place ? call.outputs[o] : call.inputs[o]);
      for (std::size_t o = 0; o < operands; ++o) copies->place(output_tensors[o], call.outputs[o]);
      if (has_ids)
        copies->place_ids(ids, ids.data, call.ids64 ? call.ids64_data.size() * sizeof(std::int64_t) : call.ids32_data.size() * sizeof(std::int32_t));
    }

    pec_call abi{};
    abi.spec_text = spec.text().c_str();
    abi.spec = &spec.flat();
    abi.sequence_length = call.sequence_length;
    abi.operand_count = static_cast<std::int32_t>(operands);
    abi.in_place = call.in_place;
    abi.inputs = input_tensors.empty() ? nullptr : input_tensors.data();
    abi.outputs = output_tensors.data();
    abi.ids = has_ids ? &ids : nullptr;
    abi.id_offset = call.id_offset;
    abi.first = call.first;
    abi.rows = call.rows;
    abi.key_first = call.key_first;
    abi.keys = call.keys;
    abi.stream = device_ != nullptr ? device_->stream() : nullptr;

    std::array<char, 1024> error{};
    const pec_status status = kernel_.run(&abi, error.data(), error.size());
    error.back() = '\0';
    const std::string message = error.front() == '\0' ? "no message" : error.data();
    if (status == PEC_OK) {
      if (copies) copies->copy_back();
      return;
    }
    if (status == PEC_REFUSED) throw SpecError(fmt::format("kernel '{}' refused the call: {}", kernel_.name, message));
    if (status == PEC_FAILED) throw std::runtime_error(fmt::format("kernel '{}' failed: {}", kernel_.name, message));
    throw std::runtime_error(fmt::format("kernel '{}' returned status {}, which is none of PEC_OK, PEC_REFUSED, PEC_FAILED ({})",
                                         kernel_.name, static_cast<int>(status), message));
  }

 private:
  std::shared_ptr<const PluginLibrary> library_;
  const KernelDeclaration& kernel_;
  std::unique_ptr<DeviceMemory> device_;  // null for kDLCPU
};

}  // namespace

std::unique_ptr<TensorBackend> make_plugin_tensor_backend(std::shared_ptr<const PluginLibrary> library, std::size_t kernel,
                                                          std::optional<int> device) {
  return std::make_unique<PluginTensorBackend>(std::move(library), kernel, device);
}

}  // namespace peconform::plugin
