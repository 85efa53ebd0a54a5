#include "backends/plugin/plugin_library.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/plugin/device_memory.hpp"
#include "spec/spec_error.hpp"

namespace peconform::plugin {
namespace {

// Limits on what a declaration may hold, so that a corrupt one is refused rather than read
// without end.
constexpr std::int32_t kMostKernels = 4096;
constexpr std::size_t kLongestText = 1 << 16;

// A declared string: NUL-terminated within kLongestText bytes. Throws SpecError naming `what`.
std::string declared_text(const char* text, const std::string& what) {
  if (text == nullptr) throw SpecError(fmt::format("{} is NULL", what));
  const std::size_t length = strnlen(text, kLongestText);
  if (length == kLongestText) throw SpecError(fmt::format("{} is longer than {} bytes", what, kLongestText - 1));
  return {text, length};
}

// Names become folder names (the regression corpus) and command-line arguments.
constexpr std::size_t kLongestName = 128;
bool is_plain_name(const std::string& name) {
  return !name.empty() && name.size() <= kLongestName && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

// Why `kernel` cannot be served, or empty. Spec patterns are checked here for their text;
// whether they make specs at all is the campaign's to check (harness/case_generator.hpp).
std::string refusal_of(KernelDeclaration& kernel) {
  try {
    kernel.patterns = SpecPattern::parse_list(kernel.spec_patterns);
    const std::vector<Dtype> every_dtype{Dtype::fp64, Dtype::fp32, Dtype::fp16, Dtype::bf16};
    const std::vector<PrecisionClass> every_class{PrecisionClass::exact_angle, PrecisionClass::fp32_angle,
                                                  PrecisionClass::lowp_cache, PrecisionClass::fp64_angle};
    // Reading the dtypes and classes a pattern chooses among refuses a name that is none of them.
    // What is left is never empty: each choice names one of the four, and every_* holds all four.
    for (const SpecPattern& pattern : kernel.patterns) {
      static_cast<void>(pattern.dtypes(every_dtype));
      static_cast<void>(pattern.precisions(every_class));
    }
  } catch (const SpecError& error) {
    return error.what();
  }
  if (const std::string why = unserved_device_type(kernel.device_type); !why.empty())
    return fmt::format("device type {} ({}) is not served: {}", kernel.device_type, device_type_name(kernel.device_type), why);
  if ((kernel.takes & ~static_cast<std::uint32_t>(PEC_TAKES_EVERY_CALL)) != 0)
    return fmt::format("takes = {:#x} has bits no PEC_TAKES_* flag of ABI version {} defines", kernel.takes, PECONFORM_ABI_VERSION);
  if ((kernel.takes & (PEC_TAKES_IN_PLACE | PEC_TAKES_OUT_OF_PLACE)) == 0)
    return "takes neither PEC_TAKES_IN_PLACE nor PEC_TAKES_OUT_OF_PLACE";
  if ((kernel.takes & (PEC_TAKES_IDS32 | PEC_TAKES_IDS64)) == 0) return "takes neither PEC_TAKES_IDS32 nor PEC_TAKES_IDS64";
  if (kernel.largest_call_elements < 0)
    return fmt::format("largest_call_elements is {}; expected 0 (no limit) or a positive count", kernel.largest_call_elements);
  if (kernel.run == nullptr) return "run is NULL";
  return "";
}

}  // namespace

CallsTaken KernelDeclaration::calls_taken() const {
  CallsTaken calls;
  calls.out_of_place = (takes & PEC_TAKES_OUT_OF_PLACE) != 0;
  calls.in_place = (takes & PEC_TAKES_IN_PLACE) != 0;
  calls.ids32 = (takes & PEC_TAKES_IDS32) != 0;
  calls.ids64 = (takes & PEC_TAKES_IDS64) != 0;
  calls.strided = (takes & PEC_TAKES_STRIDED) != 0;
  calls.key_operand = (takes & PEC_TAKES_KEY_OPERAND) != 0;
  return calls;
}

std::shared_ptr<const PluginLibrary> PluginLibrary::load(const std::string& path) {
  std::shared_ptr<PluginLibrary> library(new PluginLibrary());
  library->path_ = path;
  // A bare name would be searched on the library path; a plugin is always a file.
  const std::string opened = path.find('/') == std::string::npos ? "./" + path : path;
  library->handle_ = dlopen(opened.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library->handle_ == nullptr) throw SpecError(fmt::format("cannot load plugin '{}': {}", path, dlerror()));
  const auto entry = reinterpret_cast<pec_plugin_entry>(dlsym(library->handle_, PECONFORM_PLUGIN_SYMBOL));
  if (entry == nullptr)
    throw SpecError(fmt::format("plugin '{}' exports no {} function (include/peconform/kernel_abi.h)", path, PECONFORM_PLUGIN_SYMBOL));
  const pec_plugin* declaration = entry();
  if (declaration == nullptr) throw SpecError(fmt::format("plugin '{}': {}() returned NULL", path, PECONFORM_PLUGIN_SYMBOL));
  if (declaration->abi_version != PECONFORM_ABI_VERSION)
    throw SpecError(fmt::format("plugin '{}' was built against peconform ABI version {}; this peconform speaks version {}", path,
                                declaration->abi_version, PECONFORM_ABI_VERSION));
  library->name_ = declared_text(declaration->library_name, fmt::format("plugin '{}': library_name", path));
  if (!is_plain_name(library->name_))
    throw SpecError(fmt::format("plugin '{}': library_name '{}' must be 1 to {} letters, digits, '_', '-' and '.'", path, library->name_, kLongestName));
  if (declaration->kernel_count < 0 || declaration->kernel_count > kMostKernels)
    throw SpecError(fmt::format("plugin '{}': kernel_count is {}; expected 0 to {}", path, declaration->kernel_count, kMostKernels));
  if (declaration->kernel_count > 0 && declaration->kernels == nullptr)
    throw SpecError(fmt::format("plugin '{}': kernel_count is {} but kernels is NULL", path, declaration->kernel_count));
  for (std::int32_t k = 0; k < declaration->kernel_count; ++k) {
    const pec_kernel& declared = declaration->kernels[k];
    KernelDeclaration kernel;
    try {
      kernel.name = declared_text(declared.name, fmt::format("kernel {}'s name", k));
      kernel.spec_patterns = declared_text(declared.spec_patterns, fmt::format("kernel '{}': spec_patterns", kernel.name));
    } catch (const SpecError& error) {
      kernel.name = kernel.name.empty() ? fmt::format("#{}", k) : kernel.name;
      kernel.refusal = error.what();
      library->kernels_.push_back(std::move(kernel));
      continue;
    }
    kernel.device_type = declared.device_type;
    kernel.takes = declared.takes;
    kernel.largest_call_elements = declared.largest_call_elements;
    kernel.run = declared.run;
    if (!is_plain_name(kernel.name))
      kernel.refusal = fmt::format("kernel name '{}' must be 1 to {} letters, digits, '_', '-' and '.'", kernel.name, kLongestName);
    else if (std::any_of(library->kernels_.begin(), library->kernels_.end(), [&](const KernelDeclaration& other) { return other.name == kernel.name; }))
      kernel.refusal = fmt::format("kernel name '{}' is declared twice", kernel.name);
    else
      kernel.refusal = refusal_of(kernel);
    library->kernels_.push_back(std::move(kernel));
  }
  return library;
}

PluginLibrary::~PluginLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

std::size_t PluginLibrary::index_of(const std::string& name) const {
  const auto found = std::find_if(kernels_.begin(), kernels_.end(), [&](const KernelDeclaration& k) { return k.name == name; });
  if (found != kernels_.end()) return static_cast<std::size_t>(found - kernels_.begin());
  std::vector<std::string> names;
  for (const KernelDeclaration& k : kernels_) names.push_back(k.name);
  throw SpecError(fmt::format("plugin '{}' declares no kernel '{}'; it declares: {}", path_, name,
                              names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
}

}  // namespace peconform::plugin
