#pragma once
// A kernel library loaded through the C ABI (include/peconform/kernel_abi.h): its declaration
// read and checked once, kernel by kernel. A declaration peconform cannot serve (an unknown
// spec key, a dtype the class cannot hold, a device this build does not drive) is kept with
// the reason it is refused, so that `peconform plugin-info` can say why.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/tensor_backend.hpp"
#include "peconform/kernel_abi.h"
#include "spec/spec_pattern.hpp"

namespace peconform::plugin {

struct KernelDeclaration {
  std::string name;
  std::string spec_patterns;  // as declared
  std::vector<SpecPattern> patterns;
  std::int32_t device_type = kDLCPU;
  std::uint32_t takes = 0;
  std::int64_t largest_call_elements = 0;  // 0: none of its own
  pec_kernel_fn run = nullptr;
  std::string refusal;  // why peconform refuses this kernel; empty when it serves it

  bool served() const { return refusal.empty(); }
  CallsTaken calls_taken() const;
};

class PluginLibrary {
 public:
  // Loads the library at `path` and reads its declaration. Throws SpecError when it cannot be
  // loaded, exports no peconform_plugin_v1, or was built against another ABI version (naming
  // both versions).
  static std::shared_ptr<const PluginLibrary> load(const std::string& path);
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }
  const std::vector<KernelDeclaration>& kernels() const { return kernels_; }
  // The index in kernels() of the declaration named `kernel`; throws SpecError listing the
  // library's kernels if none is.
  std::size_t index_of(const std::string& kernel) const;

 private:
  PluginLibrary() = default;

  std::string path_, name_;
  void* handle_ = nullptr;
  std::vector<KernelDeclaration> kernels_;
};

}  // namespace peconform::plugin
