#pragma once
// What the two ends of the tensor-file route share: `peconform cases export` draws cases and
// `peconform run --outputs` draws them again, with the same generator, filters and kernel
// capabilities, so that both have the same case strings in the same order. A kernel reached
// through files is only ever given the exported calls: no smaller case can be run on it, so
// its failures are reported as drawn, and none is saved to the regression corpus.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/tensor_backend.hpp"
#include "harness/case_generator.hpp"

namespace peconform::tensorfiles {

// The backend name cells, reports and failures carry.
inline constexpr const char* kBackendName = "tensor-files";

struct Drawing {
  harness::CaseFilters filters;
  BackendCapabilities capabilities;
  std::string filters_text;  // for the report, as `run` writes it
};

// `spec_text` is a spec, drawn from as `peconform run --spec` draws (every case that spec), or a
// spec pattern (with `*` or `|` choices, include/peconform/kernel_abi.h), drawn from as a plugin
// kernel declaring it is. Throws SpecError for bad text or a pattern the campaign cannot draw from.
Drawing file_route_drawing(const std::string& spec_text);

// The cases a campaign runs, numbered as it numbers them: the `cases` (else the profile's count)
// random cases of `spec_text` drawn from `seed`, from 1; or the one `replay` case, as 0.
struct DrawnCase {
  std::uint64_t index = 0;
  harness::CaseDescription description;
};
std::vector<DrawnCase> file_route_cases(const std::string& spec_text, const std::string& profile, std::uint64_t seed,
                                        std::optional<std::uint64_t> cases, const std::optional<std::string>& replay);

// A kernel reached through files takes every call our CPU kernels take, up to 2^31 elements: the
// deep profile's one huge call (a 4 GiB operand) is not exported.
BackendCapabilities file_route_capabilities();

// How a failure found through files is replayed: export that case alone, run the kernel on it,
// verify its outputs; and what the report says of shrinking.
std::string file_route_replay_command(const std::string& case_text);
inline constexpr const char* kNotShrunkNote =
    "not shrunk or saved: the tensor-file route has the kernel's outputs for the exported cases only, so no smaller "
    "case can be run; the replay command exports this case alone";

}  // namespace peconform::tensorfiles
