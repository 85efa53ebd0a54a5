#pragma once
// A property: a sentence of mathematics, checked once against the Implementation interface so
// that the same check runs on the exact tier, the fast tier and every backend.
#include <span>
#include <string_view>
#include <vector>

#include "backends/implementation.hpp"

namespace peconform {

struct VariantRelation;  // properties/variant_relations.hpp

struct Property {
  std::string_view name;      // the sentence, as the test is named
  std::string_view families;  // the families it checks
  void (*check)(const Implementation& implementation);
  // Set where the property needs only the implementation: the relation a variant with no Spec
  // is checked on (properties/variant.hpp), the same statement with the declaration's bound.
  const VariantRelation* variant = nullptr;
};

// The catalog, in the order the tests run.
std::span<const Property> all_properties();

std::vector<Property> rotary_properties();
std::vector<Property> frequency_plan_properties();
std::vector<Property> table_properties();
std::vector<Property> relative_bias_properties();
std::vector<Property> conformance_properties();

}  // namespace peconform
