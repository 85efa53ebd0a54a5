#pragma once
// A kernel library's variant kernels (include/peconform/variant_abi.h), read and checked once:
// each kernel's declaration becomes a VariantDeclaration (properties/variant.hpp) and its entry
// point a VariantKernel, so that run_variant_properties() checks it as it checks any variant.
#include <memory>
#include <string>
#include <vector>

#include "peconform/variant_abi.h"
#include "properties/variant.hpp"

namespace peconform::plugin {

class VariantPluginLibrary;

// One declared variant kernel; the library it came from stays loaded while it lives.
class VariantPluginKernel final : public VariantKernel {
 public:
  VariantPluginKernel(std::shared_ptr<const VariantPluginLibrary> library, std::string name, VariantDeclaration declaration,
                      pec_variant_fn run);
  const std::string& name() const { return name_; }
  const VariantDeclaration& declaration() const { return declaration_; }
  // Calls the kernel; throws std::runtime_error with its message when it does not return PEC_OK.
  std::vector<double> evaluate(const VariantBatch& batch) const override;

 private:
  std::shared_ptr<const VariantPluginLibrary> library_;
  std::string name_;
  VariantDeclaration declaration_;
  pec_variant_fn run_;
};

class VariantPluginLibrary : public std::enable_shared_from_this<VariantPluginLibrary> {
 public:
  // Loads the library at `path` and reads peconform_variants_v1. Throws SpecError when it
  // cannot be loaded, exports no such function, was built against another variant ABI version
  // (naming both), or declares a kernel peconform cannot read (naming the kernel and the field;
  // a declaration with an impossible value names it as validate() does).
  static std::shared_ptr<const VariantPluginLibrary> load(const std::string& path);
  ~VariantPluginLibrary();
  VariantPluginLibrary(const VariantPluginLibrary&) = delete;
  VariantPluginLibrary& operator=(const VariantPluginLibrary&) = delete;

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }
  // Every declared kernel, in declaration order.
  std::vector<VariantPluginKernel> kernels() const;
  // The kernel named `name`; throws SpecError listing the library's kernels if none is.
  VariantPluginKernel kernel(const std::string& name) const;

 private:
  VariantPluginLibrary() = default;

  struct Declared {
    std::string name;
    VariantDeclaration declaration;
    pec_variant_fn run;
  };
  std::string path_, name_;
  void* handle_ = nullptr;
  std::vector<Declared> declared_;
};

}  // namespace peconform::plugin
