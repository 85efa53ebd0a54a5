#pragma once
// The manifest of an exported set of cases (manifest.json, format peconform.cases/1): how the
// cases were drawn, so that `peconform run --outputs` draws the same ones, and per case its case
// string, spec, call and the files of its inputs, ids and the outputs the kernel must write.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace peconform::tensorfiles {

inline constexpr const char* kManifestFormat = "peconform.cases/1";
inline constexpr const char* kManifestFile = "manifest.json";

// One .npy file of a case, its path relative to the manifest's folder.
struct ArrayFile {
  std::string name;  // q, k, table, ids, out, bias, index
  std::string file;
  std::string descr;  // as numpy.lib.format writes it
  std::vector<std::int64_t> shape;
  std::string holds;  // what the elements are: "fp16", "bf16 bits as uint16", "int64 ids" (written for the reader)
};

struct ManifestCase {
  std::uint64_t index = 0;  // the campaign's case number (from 1); 0 for an exported --replay case
  std::string case_text;    // `peconform run --replay` takes it
  std::string spec;         // canonical
  std::string fingerprint;  // call_fingerprint of its call, hex
  bool in_place = false;
  std::int64_t sequence_length = 1, id_offset = 0, first = 0, rows = 0, key_first = 0, keys = 0;
  std::vector<ArrayFile> inputs;
  std::optional<ArrayFile> ids;
  std::vector<ArrayFile> outputs;  // what the kernel writes
};

struct Manifest {
  // How the cases were drawn: `spec` a spec or a spec pattern; `replay` one case instead.
  std::string spec, profile;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> cases;
  std::optional<std::string> replay;
  std::vector<ManifestCase> entries;
};

// Writes `folder`/manifest.json (atomically).
void write_manifest(const std::filesystem::path& folder, const Manifest& manifest);
// Reads `folder`/manifest.json; throws SpecError naming the file and the missing or bad field.
Manifest read_manifest(const std::filesystem::path& folder);

}  // namespace peconform::tensorfiles
