#include "properties/property.hpp"

namespace peconform {

std::span<const Property> all_properties() {
  static const std::vector<Property> catalog = [] {
    std::vector<Property> out;
    for (auto part : {rotary_properties, frequency_plan_properties, table_properties, relative_bias_properties,
                      conformance_properties}) {
      const std::vector<Property> properties = part();
      out.insert(out.end(), properties.begin(), properties.end());
    }
    return out;
  }();
  return catalog;
}

}  // namespace peconform
