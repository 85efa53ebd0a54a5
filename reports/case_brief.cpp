#include "reports/case_brief.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace peconform {
namespace {

constexpr std::size_t kLongList = 40;  // characters between the brackets

}  // namespace

std::string case_spec_brief(std::string_view case_text) {
  const std::string_view spec = case_text.substr(0, case_text.find(" | "));
  std::string brief;
  std::size_t at = 0;
  // Each ']' closes the list opened by the nearest '[' before it: the innermost, without brackets.
  for (std::size_t close = spec.find(']'); close != std::string_view::npos; close = spec.find(']', at)) {
    const std::size_t open = spec.rfind('[', close);
    const std::string_view list = open == std::string_view::npos || open < at ? std::string_view()
                                                                              : spec.substr(open + 1, close - open - 1);
    if (list.size() >= kLongList) {
      brief += spec.substr(at, open - at);
      brief += fmt::format("[{} values]", std::count(list.begin(), list.end(), ',') + 1);
    } else {
      brief += spec.substr(at, close + 1 - at);
    }
    at = close + 1;
  }
  brief += spec.substr(at);
  return brief;
}

}  // namespace peconform
