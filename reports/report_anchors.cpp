#include "reports/report_anchors.hpp"

#include <cctype>
#include <fmt/format.h>

namespace peconform {
namespace {

std::string id_part(std::string_view text) {
  std::string part;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == ',' || c == '=')
      part += c;
    else
      part += fmt::format("_{:02x}", byte);
  }
  return part;
}

}  // namespace

std::string cell_anchor(const harness::CellKey& key) {
  return fmt::format("cell/{}/{}/{}/{}", id_part(key.backend), id_part(key.family), id_part(key.dtype),
                     id_part(key.precision));
}

std::string family_anchor(std::string_view family) { return "plots/" + id_part(family); }

}  // namespace peconform
