// A variant's declaration: its checks, its text and the names of its enums.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "properties/variant.hpp"

namespace peconform {

std::string_view variant_kind_name(VariantKind kind) {
  switch (kind) {
    case VariantKind::rotary: return "rotary";
    case VariantKind::table: return "table";
    case VariantKind::bias: return "bias";
  }
  return "?";
}

namespace {

std::string_view pairing_name(VariantPairing pairing) {
  switch (pairing) {
    case VariantPairing::interleaved: return "interleaved";
    case VariantPairing::half: return "half";
    case VariantPairing::unknown: return "unknown";
  }
  return "?";
}

}  // namespace

VariantKind variant_kind_named(std::string_view text) {
  for (VariantKind kind : {VariantKind::rotary, VariantKind::table, VariantKind::bias})
    if (variant_kind_name(kind) == text) return kind;
  throw VariantError(fmt::format("kind: '{}' is not a variant kind (rotary, table, bias)", text));
}

VariantPairing variant_pairing_named(std::string_view text) {
  for (VariantPairing pairing : {VariantPairing::interleaved, VariantPairing::half, VariantPairing::unknown})
    if (pairing_name(pairing) == text) return pairing;
  throw VariantError(fmt::format("pairing: '{}' is not a pairing (interleaved, half, unknown)", text));
}

std::string_view variant_verdict_name(VariantVerdict verdict) {
  switch (verdict) {
    case VariantVerdict::held: return "held";
    case VariantVerdict::failed: return "failed";
    case VariantVerdict::not_constrained: return "not constrained";
    case VariantVerdict::refused: return "refused";
  }
  return "?";
}

void validate(const VariantDeclaration& declaration) {
  if (declaration.axes < 1 || declaration.axes > kMostAxes)
    throw VariantError(fmt::format("axes: {} is not a count of position axes; expected 1 to {} (the relations across axes run for "
                                   "each of the N (N - 1) / 2 pairs)",
                                   declaration.axes, kMostAxes));
  const int d = declaration.d;
  if (d < 1) throw VariantError(fmt::format("d: {} is not a positive dimension", d));
  if (declaration.rot < 0 || declaration.rot > d)
    throw VariantError(fmt::format("rot: {} is not in [0, d = {}]", declaration.rot, d));
  if (declaration.rot != 0 && declaration.kind != VariantKind::rotary)
    throw VariantError(fmt::format("rot: {} is declared for a {} variant; only a rotary variant rotates part of its input",
                                   declaration.rot, variant_kind_name(declaration.kind)));
  const int rotated = declaration.rot == 0 ? d : declaration.rot;
  if (declaration.kind == VariantKind::rotary && declaration.pairing != VariantPairing::unknown && rotated % 2 != 0)
    throw VariantError(fmt::format("pairing: {} pairs the {} rotated elements, an odd number", pairing_name(declaration.pairing),
                                   rotated));
  if (declaration.kind == VariantKind::bias && declaration.pairing != VariantPairing::unknown)
    throw VariantError(fmt::format("pairing: {} is declared for a bias, which has no pairs", pairing_name(declaration.pairing)));
  if (!(declaration.amplitude.to_double() > 0))
    throw VariantError(fmt::format("amplitude: {} is not positive", declaration.amplitude.text()));
  if (declaration.max_frequency.to_double() < 0)
    throw VariantError(fmt::format("max_frequency: {} is negative", declaration.max_frequency.text()));
  if (!(declaration.base.to_double() > 1))
    throw VariantError(fmt::format("base: {} is not above 1", declaration.base.text()));
  if (declaration.max_position < 1)
    throw VariantError(fmt::format("max_position: {} leaves no position but 0 to draw", declaration.max_position));
  if (!declaration.axis_max_positions.empty() && declaration.axis_max_positions.size() != static_cast<std::size_t>(declaration.axes))
    throw VariantError(fmt::format("max_position: ({}) names {} axes; the declaration has axes = {}",
                                   fmt::join(declaration.axis_max_positions, ","), declaration.axis_max_positions.size(),
                                   declaration.axes));
  for (std::size_t axis = 0; axis < declaration.axis_max_positions.size(); ++axis)
    if (declaration.axis_max_positions[axis] < 1)
      throw VariantError(fmt::format("max_position: ({}) leaves axis {} no position but 0 to draw",
                                     fmt::join(declaration.axis_max_positions, ","), axis));
}

std::vector<std::int64_t> axis_limits(const VariantDeclaration& declaration) {
  if (!declaration.axis_max_positions.empty()) return declaration.axis_max_positions;
  return std::vector<std::int64_t>(static_cast<std::size_t>(declaration.axes), declaration.max_position);
}

std::string variant_text(const VariantDeclaration& declaration) {
  std::string text = fmt::format("variant(kind={},d={}", variant_kind_name(declaration.kind), declaration.d);
  if (declaration.rot != 0)
    text += fmt::format(",rot={},rot_at={}", declaration.rot, declaration.rot_at == RotaryPlacement::first ? "first" : "last");
  if (declaration.kind != VariantKind::bias) text += fmt::format(",pairing={}", pairing_name(declaration.pairing));
  text += fmt::format(",dtype={},precision={}", dtype_name(declaration.dtype), precision_name(declaration.precision));
  if (declaration.amplitude != Decimal(1)) text += fmt::format(",amplitude={}", declaration.amplitude.text());
  if (declaration.precision == PrecisionClass::fp32_angle)
    text += fmt::format(",theta={},base={}", theta_recipe_name(declaration.theta), declaration.base.text());
  if (declaration.max_frequency != Decimal(1)) text += fmt::format(",max_frequency={}", declaration.max_frequency.text());
  if (!declaration.axis_max_positions.empty())
    text += fmt::format(",max_position=({})", fmt::join(declaration.axis_max_positions, ","));
  else if (declaration.max_position != 2147483647)
    text += fmt::format(",max_position={}", declaration.max_position);
  if (declaration.negative_positions) text += ",negative_positions=true";
  if (declaration.axes != 1) text += fmt::format(",axes={}", declaration.axes);
  return text + ")";
}

}  // namespace peconform
