#include "tensorfiles/manifest.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reports/atomic_file.hpp"
#include "spec/spec_error.hpp"

namespace peconform::tensorfiles {
namespace {

using nlohmann::json;
// Written with its keys in the order a reader meets them (format, notes, how drawn, cases).
using ordered = nlohmann::ordered_json;

// What a kernel author reads first: how the arrays are laid out and what to write.
constexpr const char* kArraysNote =
    "Every array is a contiguous C-order .npy of its logical shape: rotary q and k [batch, seq, heads, d], a learned "
    "table [rows, d] and its output [batch, seq, d], sinusoidal and xl tables [rows, d], ALiBi biases [heads, queries, "
    "keys], T5 and Shaw buckets [queries, keys] (int32), ids [axes, batch, seq]. The case's memory order and padding "
    "(order=, pad= in its case string) are what an in-process kernel is given; files carry plain arrays. Position of "
    "token (b, s) on axis a = ids[a, b, s] + id_offset. Tables: rows `rows` from `first`; relative families: "
    "`rows` queries from `first`, `keys` keys from `key_first`. bf16 has no NumPy dtype: it is stored as its raw "
    "bits, '<u2' (torch.from_numpy(a).view(torch.bfloat16)), and outputs are read back the same way. In place or "
    "not, the kernel writes every output file named under `outputs`, with exactly its dtype and shape.";

ordered array_json(const ArrayFile& a) {
  return {{"name", a.name}, {"file", a.file}, {"dtype", a.descr}, {"shape", a.shape}, {"holds", a.holds}};
}

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  template <class T> T field(const json& object, const std::string& key, const std::string& where) const {
    if (!object.is_object() || !object.contains(key)) fail(fmt::format("{} has no \"{}\"", where, key));
    try {
      return object.at(key).get<T>();
    } catch (const json::exception&) {
      fail(fmt::format("{}'s \"{}\" is {}, which is not of the expected type", where, key, object.at(key).dump()));
    }
  }

  ArrayFile array(const json& object, const std::string& where) const {
    ArrayFile a;
    a.name = field<std::string>(object, "name", where);
    a.file = field<std::string>(object, "file", where);
    a.descr = field<std::string>(object, "dtype", where);
    a.shape = field<std::vector<std::int64_t>>(object, "shape", where);
    if (object.contains("holds")) a.holds = field<std::string>(object, "holds", where);
    // Paths stay inside the folder: a manifest is input, and run --outputs reads what it names.
    const std::filesystem::path path(a.file);
    if (a.file.empty() || path.is_absolute() || std::any_of(path.begin(), path.end(), [](const auto& part) { return part == ".."; }))
      fail(fmt::format("{} names the file '{}', which is not a path inside the manifest's folder", where, a.file));
    return a;
  }

  [[noreturn]] void fail(const std::string& why) const { throw SpecError(fmt::format("manifest '{}': {}", file_.string(), why)); }

 private:
  std::filesystem::path file_;
};

}  // namespace

void write_manifest(const std::filesystem::path& folder, const Manifest& manifest) {
  ordered cases = ordered::array();
  for (const ManifestCase& c : manifest.entries) {
    ordered inputs = ordered::array(), outputs = ordered::array();
    for (const ArrayFile& a : c.inputs) inputs.push_back(array_json(a));
    for (const ArrayFile& a : c.outputs) outputs.push_back(array_json(a));
    ordered entry = {{"index", c.index},
                     {"case", c.case_text},
                     {"spec", c.spec},
                     {"call",
                      {{"in_place", c.in_place},
                       {"sequence_length", c.sequence_length},
                       {"id_offset", c.id_offset},
                       {"first", c.first},
                       {"rows", c.rows},
                       {"key_first", c.key_first},
                       {"keys", c.keys}}},
                     {"inputs", inputs},
                     {"ids", c.ids ? array_json(*c.ids) : ordered(nullptr)},
                     {"outputs", outputs},
                     {"fingerprint", c.fingerprint}};
    cases.push_back(std::move(entry));
  }
  ordered document = {{"format", kManifestFormat},
                      {"arrays", kArraysNote},
                      {"spec", manifest.spec},
                      {"profile", manifest.profile},
                      {"seed", manifest.seed},
                      {"cases_requested", manifest.cases ? ordered(*manifest.cases) : ordered(nullptr)},
                      {"replay", manifest.replay ? ordered(*manifest.replay) : ordered(nullptr)},
                      {"cases", cases}};
  write_file_atomically(folder / kManifestFile, document.dump(1) + "\n");
}

Manifest read_manifest(const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / kManifestFile;
  const Reader reader(file);
  std::ifstream in(file);
  if (!in)
    throw SpecError(fmt::format("'{}' has no {}: give the folder `peconform cases export --out` wrote", folder.string(), kManifestFile));
  const json document = json::parse(in, nullptr, false);
  if (document.is_discarded()) reader.fail("is not valid JSON");
  if (!document.is_object() || !document.contains("format") || document.at("format") != kManifestFormat)
    reader.fail(fmt::format("is not a {} document (no \"format\": \"{}\")", kManifestFormat, kManifestFormat));
  Manifest manifest;
  manifest.spec = reader.field<std::string>(document, "spec", "the manifest");
  manifest.profile = reader.field<std::string>(document, "profile", "the manifest");
  manifest.seed = reader.field<std::uint64_t>(document, "seed", "the manifest");
  if (document.contains("cases_requested") && !document["cases_requested"].is_null())
    manifest.cases = reader.field<std::uint64_t>(document, "cases_requested", "the manifest");
  if (document.contains("replay") && !document["replay"].is_null())
    manifest.replay = reader.field<std::string>(document, "replay", "the manifest");
  const json cases = reader.field<json>(document, "cases", "the manifest");
  if (!cases.is_array()) reader.fail("\"cases\" is not an array");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const json& entry = cases[k];
    const std::string where = fmt::format("case entry {}", k + 1);
    ManifestCase c;
    c.index = reader.field<std::uint64_t>(entry, "index", where);
    c.case_text = reader.field<std::string>(entry, "case", where);
    c.spec = reader.field<std::string>(entry, "spec", where);
    c.fingerprint = reader.field<std::string>(entry, "fingerprint", where);
    const json call = reader.field<json>(entry, "call", where);
    c.in_place = reader.field<bool>(call, "in_place", where + "'s call");
    c.sequence_length = reader.field<std::int64_t>(call, "sequence_length", where + "'s call");
    c.id_offset = reader.field<std::int64_t>(call, "id_offset", where + "'s call");
    c.first = reader.field<std::int64_t>(call, "first", where + "'s call");
    c.rows = reader.field<std::int64_t>(call, "rows", where + "'s call");
    c.key_first = reader.field<std::int64_t>(call, "key_first", where + "'s call");
    c.keys = reader.field<std::int64_t>(call, "keys", where + "'s call");
    for (const json& a : reader.field<json>(entry, "inputs", where)) c.inputs.push_back(reader.array(a, where + "'s input"));
    if (entry.contains("ids") && !entry["ids"].is_null()) c.ids = reader.array(entry["ids"], where + "'s ids");
    const json outputs = reader.field<json>(entry, "outputs", where);
    if (!outputs.is_array() || outputs.empty()) reader.fail(fmt::format("{} names no output", where));
    for (const json& a : outputs) c.outputs.push_back(reader.array(a, where + "'s output"));
    manifest.entries.push_back(std::move(c));
  }
  return manifest;
}

}  // namespace peconform::tensorfiles
