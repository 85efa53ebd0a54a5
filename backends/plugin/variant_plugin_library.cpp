#include "backends/plugin/variant_plugin_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "spec/spec_error.hpp"

namespace peconform::plugin {
namespace {

constexpr std::int32_t kMostKernels = 4096;
constexpr std::size_t kLongestName = 128;

// A declared name: NUL-terminated, 1 to 128 of [A-Za-z0-9_.-] (as kernel_abi.h's names).
std::string declared_name(const char* text, const std::string& what) {
  if (text == nullptr) throw SpecError(fmt::format("{} is NULL", what));
  const std::string name(text, strnlen(text, kLongestName + 1));
  const bool plain = !name.empty() && name.size() <= kLongestName && name != "." && name != ".." &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
                     });
  if (!plain) throw SpecError(fmt::format("{} '{}' must be 1 to {} letters, digits, '_', '-' and '.'", what, name, kLongestName));
  return name;
}

Dtype dtype_of(DLDataType dtype, const std::string& what) {
  if (dtype.lanes == 1 && dtype.code == kDLFloat && dtype.bits == 64) return Dtype::fp64;
  if (dtype.lanes == 1 && dtype.code == kDLFloat && dtype.bits == 32) return Dtype::fp32;
  if (dtype.lanes == 1 && dtype.code == kDLFloat && dtype.bits == 16) return Dtype::fp16;
  if (dtype.lanes == 1 && dtype.code == kDLBfloat && dtype.bits == 16) return Dtype::bf16;
  throw SpecError(fmt::format("{}: dtype (code {}, bits {}, lanes {}) is not float64, float32, float16 or bfloat16", what,
                              dtype.code, dtype.bits, dtype.lanes));
}

template <class Enum> Enum enum_in(std::int32_t value, int count, const std::string& what) {
  if (value < 0 || value >= count) throw SpecError(fmt::format("{} is {}; expected 0 to {}", what, value, count - 1));
  return static_cast<Enum>(value);
}

// A double of the declaration as the Decimal a VariantDeclaration holds: its shortest text.
Decimal decimal_of(double value, const std::string& what) {
  try {
    return Decimal::parse(fmt::format("{}", value));
  } catch (const SpecError&) {
    throw SpecError(fmt::format("{} is {}, not a finite number", what, value));
  }
}

// pec_variant as variant ABI version 1 laid it out: version 2's `axes` sits in its trailing
// padding, which is what lets a version-1 library's kernels array be read with today's types.
struct VariantVersion1 {
  std::int32_t kind, d;
  DLDataType dtype;
  std::int32_t precision, pairing, rot, rot_last;
  double amplitude, max_frequency;
  std::int32_t theta;
  double base;
  std::int64_t max_position;
  std::int32_t negative_positions;
};
static_assert(sizeof(VariantVersion1) == sizeof(pec_variant) && offsetof(pec_variant, axes) >= sizeof(std::int32_t) +
                                                                     offsetof(pec_variant, negative_positions),
              "variant ABI version 2 must keep pec_variant's size: axes lives in version 1's padding");

VariantDeclaration declaration_of(const pec_variant& declared, std::uint32_t abi_version, const std::string& kernel) {
  const std::string what = fmt::format("variant kernel '{}'", kernel);
  VariantDeclaration out;
  out.kind = enum_in<VariantKind>(declared.kind, 3, what + ": kind");
  out.d = declared.d;
  out.dtype = dtype_of(declared.dtype, what);
  out.precision = enum_in<PrecisionClass>(declared.precision, 3, what + ": precision");
  out.pairing = enum_in<VariantPairing>(declared.pairing, 3, what + ": pairing");
  out.rot = declared.rot;
  out.rot_at = declared.rot_last != 0 ? RotaryPlacement::last : RotaryPlacement::first;
  out.amplitude = decimal_of(declared.amplitude, what + ": amplitude");
  out.max_frequency = decimal_of(declared.max_frequency, what + ": max_frequency");
  out.theta = enum_in<ThetaRecipe>(declared.theta, 5, what + ": theta");
  out.base = decimal_of(declared.base, what + ": base");
  out.max_position = declared.max_position;
  out.negative_positions = declared.negative_positions != 0;
  // 0 is one axis too, so that a version-1 declaration rebuilt against this header (its `axes`
  // left zero by the initializer) reads as it always has.
  out.axes = abi_version >= 2 && declared.axes != 0 ? declared.axes : 1;
  try {
    validate(out);
  } catch (const VariantError& error) {
    throw SpecError(fmt::format("{}: {}", what, error.what()));
  }
  return out;
}

}  // namespace

VariantPluginKernel::VariantPluginKernel(std::shared_ptr<const VariantPluginLibrary> library, std::string name,
                                         VariantDeclaration declaration, pec_variant_fn run)
    : library_(std::move(library)), name_(std::move(name)), declaration_(std::move(declaration)), run_(run) {}

std::vector<double> VariantPluginKernel::evaluate(const VariantBatch& batch) const {
  std::vector<double> outputs(batch.rows() * static_cast<std::size_t>(declaration_.d));
  const pec_variant_call call{static_cast<std::int64_t>(batch.rows()), batch.positions.data(),
                              batch.keys.empty() ? nullptr : batch.keys.data(),
                              batch.inputs.empty() ? nullptr : batch.inputs.data(), outputs.data(), batch.axes};
  char error[1024] = "";
  const pec_status status = run_(&call, error, sizeof error);
  error[sizeof error - 1] = '\0';
  if (status != PEC_OK)
    throw std::runtime_error(fmt::format("variant kernel '{}' returned {} ({})", name_,
                                         status == PEC_REFUSED ? "PEC_REFUSED" : status == PEC_FAILED ? "PEC_FAILED" : "an unknown status",
                                         error[0] != '\0' ? error : "no message"));
  return outputs;
}

std::shared_ptr<const VariantPluginLibrary> VariantPluginLibrary::load(const std::string& path) {
  std::shared_ptr<VariantPluginLibrary> library(new VariantPluginLibrary());
  library->path_ = path;
  // A bare name would be searched on the library path; a plugin is always a file.
  const std::string opened = path.find('/') == std::string::npos ? "./" + path : path;
  library->handle_ = dlopen(opened.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library->handle_ == nullptr) throw SpecError(fmt::format("cannot load plugin '{}': {}", path, dlerror()));
  const auto entry = reinterpret_cast<pec_variant_plugin_entry>(dlsym(library->handle_, PECONFORM_VARIANT_PLUGIN_SYMBOL));
  if (entry == nullptr)
    throw SpecError(fmt::format("plugin '{}' exports no {} function (include/peconform/variant_abi.h)", path,
                                PECONFORM_VARIANT_PLUGIN_SYMBOL));
  const pec_variant_plugin* declaration = entry();
  if (declaration == nullptr) throw SpecError(fmt::format("plugin '{}': {}() returned NULL", path, PECONFORM_VARIANT_PLUGIN_SYMBOL));
  if (declaration->abi_version < 1 || declaration->abi_version > PECONFORM_VARIANT_ABI_VERSION)
    throw SpecError(fmt::format("plugin '{}' was built against peconform variant ABI version {}; this peconform speaks versions 1 to {}",
                                path, declaration->abi_version, PECONFORM_VARIANT_ABI_VERSION));
  library->name_ = declared_name(declaration->library_name, fmt::format("plugin '{}': library_name", path));
  if (declaration->kernel_count < 1 || declaration->kernel_count > kMostKernels)
    throw SpecError(fmt::format("plugin '{}': kernel_count is {}; expected 1 to {}", path, declaration->kernel_count, kMostKernels));
  if (declaration->kernels == nullptr) throw SpecError(fmt::format("plugin '{}': kernels is NULL", path));
  for (std::int32_t k = 0; k < declaration->kernel_count; ++k) {
    const pec_variant_kernel& declared = declaration->kernels[k];
    const std::string name = declared_name(declared.name, fmt::format("plugin '{}': variant kernel {}'s name", path, k));
    if (std::any_of(library->declared_.begin(), library->declared_.end(), [&](const Declared& other) { return other.name == name; }))
      throw SpecError(fmt::format("plugin '{}': variant kernel name '{}' is declared twice", path, name));
    if (declared.run == nullptr) throw SpecError(fmt::format("plugin '{}': variant kernel '{}': run is NULL", path, name));
    library->declared_.push_back({name, declaration_of(declared.variant, declaration->abi_version, name), declared.run});
  }
  return library;
}

VariantPluginLibrary::~VariantPluginLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::vector<VariantPluginKernel> VariantPluginLibrary::kernels() const {
  std::vector<VariantPluginKernel> out;
  for (const Declared& declared : declared_) out.emplace_back(shared_from_this(), declared.name, declared.declaration, declared.run);
  return out;
}

VariantPluginKernel VariantPluginLibrary::kernel(const std::string& name) const {
  for (const Declared& declared : declared_)
    if (declared.name == name) return {shared_from_this(), declared.name, declared.declaration, declared.run};
  std::vector<std::string> names;
  for (const Declared& declared : declared_) names.push_back(declared.name);
  throw SpecError(fmt::format("plugin '{}' declares no variant kernel '{}'; it declares: {}", path_, name, fmt::join(names, ", ")));
}

}  // namespace peconform::plugin
