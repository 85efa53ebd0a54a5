#include "tensorfiles/case_export.hpp"

#include <fmt/format.h>
#include <vector>

#include "harness/case_call.hpp"
#include "harness/element_tally.hpp"
#include "spec/spec_error.hpp"
#include "tensorfiles/call_arrays.hpp"
#include "tensorfiles/file_route.hpp"
#include "tensorfiles/npy_file.hpp"

namespace peconform::tensorfiles {
namespace {

ArrayFile write_array(const std::filesystem::path& out, const std::string& folder, const std::string& name, const std::string& descr,
                      const std::vector<std::int64_t>& shape, const std::string& holds, std::span<const std::byte> data) {
  ArrayFile file{name, folder + "/" + name + ".npy", descr, shape, holds};
  write_npy(out / file.file, descr, shape, data);
  return file;
}

ManifestCase export_case(const std::filesystem::path& out, std::uint64_t index, const harness::CaseDescription& description) {
  const KernelCall call = harness::materialize(description);
  const Family family = call.spec.family;
  ManifestCase c;
  c.index = index;
  c.case_text = description.text();
  c.spec = call.spec.canonical();
  c.fingerprint = fmt::format("{:016x}", call_fingerprint(call));
  c.in_place = call.in_place;
  c.sequence_length = call.sequence_length;
  c.id_offset = call.id_offset;
  c.first = call.first;
  c.rows = call.rows;
  c.key_first = call.key_first;
  c.keys = call.keys;
  const std::string folder = index == 0 ? "replay" : fmt::format("case-{:06}", index);
  std::filesystem::create_directories(out / folder);
  for (std::size_t o = 0; o < call.inputs.size(); ++o) {
    const Buffer& input = call.inputs[o];
    c.inputs.push_back(write_array(out, folder, "in_" + harness::buffer_name(call, input_slot(o)), storage_descr(input.type),
                                   shown_shape(input, family, true), storage_note(input.type), logical_bytes(input)));
  }
  if (is_rotary(family) || family == Family::learned) {
    const std::vector<std::int64_t> shape{call.axes, call.batch, call.seq};
    c.ids = call.ids64 ? write_array(out, folder, "ids", "<i8", shape, "int64 ids", std::as_bytes(std::span(call.ids64_data)))
                       : write_array(out, folder, "ids", "<i4", shape, "int32 ids", std::as_bytes(std::span(call.ids32_data)));
  }
  for (std::size_t o = 0; o < call.outputs.size(); ++o) {
    const Buffer& output = call.outputs[o];
    const std::string name = harness::buffer_name(call, output_slot(o));
    c.outputs.push_back({name, fmt::format("{}/{}.npy", folder, name == "out" ? name : "out_" + name), storage_descr(output.type),
                         shown_shape(output, family, false), storage_note(output.type)});
  }
  return c;
}

}  // namespace

Manifest export_cases(const ExportRequest& request, const std::filesystem::path& out,
                      const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (request.replay.has_value() == !request.spec.empty())
    throw SpecError("cases export needs either --spec (the cases a campaign draws) or --replay (one case), not both");
  // Output files of an earlier export left beside new inputs would be verified as the new ones'.
  std::error_code error;
  if (std::filesystem::exists(out, error) && (!std::filesystem::is_directory(out, error) || !std::filesystem::is_empty(out, error)))
    throw SpecError(fmt::format("--out '{}' exists and is not an empty folder; give a new folder", out.string()));
  Manifest manifest;
  manifest.spec = request.spec;
  manifest.profile = request.profile;
  manifest.seed = request.seed;
  manifest.cases = request.cases;
  manifest.replay = request.replay;
  const std::vector<DrawnCase> cases = file_route_cases(request.spec, request.profile, request.seed, request.cases, request.replay);
  std::filesystem::create_directories(out);
  for (const DrawnCase& drawn : cases) {
    manifest.entries.push_back(export_case(out, drawn.index, drawn.description));
    if (progress) progress(manifest.entries.size(), cases.size());
  }
  write_manifest(out, manifest);
  return manifest;
}

}  // namespace peconform::tensorfiles
