#include "spec/spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <numbers>
#include <numeric>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "spec/call_syntax.hpp"
#include "spec/spec_error.hpp"

namespace peconform {
namespace {

template <class E>
using NameTable = std::vector<std::pair<E, std::string_view>>;

template <class E> const NameTable<E>& names();
template <> const NameTable<Family>& names() {
  static const NameTable<Family> table{
      {Family::sinusoidal, "sinusoidal"}, {Family::learned, "learned"}, {Family::rope, "rope"},
      {Family::xpos, "xpos"},             {Family::mrope, "mrope"},     {Family::rope2d, "rope2d"},
      {Family::alibi, "alibi"},           {Family::t5, "t5"},           {Family::shaw, "shaw"},
      {Family::xl, "xl"}};
  return table;
}
template <> const NameTable<Layout>& names() {
  static const NameTable<Layout> table{
      {Layout::interleaved, "interleaved"}, {Layout::half, "half"}, {Layout::interleaved_to_half, "interleaved-to-half"}};
  return table;
}
template <> const NameTable<RotaryPlacement>& names() {
  static const NameTable<RotaryPlacement> table{{RotaryPlacement::first, "first"}, {RotaryPlacement::last, "last"}};
  return table;
}
template <> const NameTable<SinusoidalOrder>& names() {
  static const NameTable<SinusoidalOrder> table{{SinusoidalOrder::sin_cos, "sin-cos"},
                                                {SinusoidalOrder::cos_sin, "cos-sin"}};
  return table;
}
template <> const NameTable<FrequencyRule>& names() {
  static const NameTable<FrequencyRule> table{{FrequencyRule::power, "power"}, {FrequencyRule::geometric, "geometric"}};
  return table;
}
template <> const NameTable<XposRole>& names() {
  static const NameTable<XposRole> table{{XposRole::query, "query"}, {XposRole::key, "key"}};
  return table;
}
template <> const NameTable<SectionMode>& names() {
  static const NameTable<SectionMode> table{{SectionMode::blocked, "blocked"}, {SectionMode::interleaved, "interleaved"}};
  return table;
}
template <> const NameTable<AlibiMode>& names() {
  static const NameTable<AlibiMode> table{{AlibiMode::symmetric, "symmetric"},
                                                          {AlibiMode::causal, "causal"},
                                                          {AlibiMode::key, "key"},
                                                          {AlibiMode::last_key, "last-key"}};
  return table;
}
template <> const NameTable<Dtype>& names() {
  static const NameTable<Dtype> table{
      {Dtype::fp64, "fp64"}, {Dtype::fp32, "fp32"}, {Dtype::fp16, "fp16"}, {Dtype::bf16, "bf16"}};
  return table;
}
template <> const NameTable<PrecisionClass>& names() {
  static const NameTable<PrecisionClass> table{{PrecisionClass::exact_angle, "exact-angle"},
                                               {PrecisionClass::fp32_angle, "fp32-angle"},
                                               {PrecisionClass::lowp_cache, "lowp-cache"},
                                               {PrecisionClass::fp64_angle, "fp64-angle"}};
  return table;
}
template <> const NameTable<ThetaRecipe>& names() {
  static const NameTable<ThetaRecipe> table{
      {ThetaRecipe::exact, "exact"}, {ThetaRecipe::hf, "hf"},           {ThetaRecipe::meta, "meta"},
      {ThetaRecipe::ggml, "ggml"},   {ThetaRecipe::mlx, "mlx"},         {ThetaRecipe::exp_log, "exp-log"}};
  return table;
}
template <> const NameTable<RoundsIn>& names() {
  static const NameTable<RoundsIn> table{
      {RoundsIn::compute, "compute"}, {RoundsIn::storage, "storage"}, {RoundsIn::bf16, "bf16"}};
  return table;
}
template <> const NameTable<PositionRecipe>& names() {
  static const NameTable<PositionRecipe> table{{PositionRecipe::fp32, "fp32"}, {PositionRecipe::fp32_sum, "fp32-sum"}};
  return table;
}
template <> const NameTable<SlopeRecipe>& names() {
  static const NameTable<SlopeRecipe> table{{SlopeRecipe::exact, "exact"}, {SlopeRecipe::bloom, "bloom"}, {SlopeRecipe::mpt, "mpt"}};
  return table;
}
template <> const NameTable<PlanKind>& names() {
  static const NameTable<PlanKind> table{{PlanKind::none, "none"},       {PlanKind::linear, "linear"},
                                         {PlanKind::dynamic, "dynamic"}, {PlanKind::yarn, "yarn"},
                                         {PlanKind::llama3, "llama3"},   {PlanKind::longrope, "longrope"},
                                         {PlanKind::proportional, "proportional"}, {PlanKind::custom, "custom"}};
  return table;
}

template <class E> std::string_view name_of(E value) {
  for (const auto& [v, name] : names<E>())
    if (v == value) return name;
  return "?";
}

template <class E> std::string choices() {
  std::vector<std::string_view> all;
  for (const auto& entry : names<E>()) all.push_back(entry.second);
  return fmt::format("{}", fmt::join(all, "|"));
}

template <class E> E enum_from(std::string_view text, std::string_view key) {
  for (const auto& [v, name] : names<E>())
    if (name == text) return v;
  throw SpecError(fmt::format("key '{}' expects one of {}, found '{}'", key, choices<E>(), text));
}

const std::string& atom_of(const Argument& argument) {
  if (argument.kind != Argument::Kind::atom)
    throw SpecError(fmt::format("key '{}' expects a single value, found a {}", argument.key,
                                argument.kind == Argument::Kind::list ? "list" : "nested call"));
  return argument.atom;
}

long long integer_from(std::string_view text, std::string_view key, long long lo, long long hi) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi)
    throw SpecError(fmt::format("key '{}' expects an integer in [{}, {}], found '{}'", key, lo, hi, text));
  return value;
}

Decimal decimal_from(std::string_view text, std::string_view key) {
  try {
    return Decimal::parse(text);
  } catch (const SpecError& error) {
    throw SpecError(fmt::format("key '{}': {}", key, error.what()));
  }
}

Argument atom_argument(std::string_view key, std::string text) {
  Argument argument;
  argument.key = key;
  argument.atom = std::move(text);
  return argument;
}

Argument list_argument(std::string_view key, std::vector<std::string> elements) {
  Argument argument;
  argument.key = key;
  argument.kind = Argument::Kind::list;
  argument.list = std::move(elements);
  return argument;
}

// The scope a key applies to: a family for spec keys, a plan kind for plan keys.
template <class Owner> struct KeyScope;
template <> struct KeyScope<Spec> {
  using type = Family;
};
template <> struct KeyScope<FrequencyPlan> {
  using type = PlanKind;
};
template <class Owner> using ScopeOf = typename KeyScope<Owner>::type;

// One key of a spec or plan: where it applies, whether the canonical form always shows it, and
// how it reads and writes its value. Keys appear in the canonical form in table order.
template <class Owner> struct KeyRule {
  std::string_view name;
  std::vector<ScopeOf<Owner>> scope;
  bool always_printed;
  std::function<void(Owner&, const Argument&)> read;
  std::function<Argument(const Owner&)> write;
};

template <class Owner, class Member>
KeyRule<Owner> integer_key(std::string_view name, std::vector<ScopeOf<Owner>> scope, bool always,
                           Member Owner::*member, long long lo, long long hi) {
  return {name, std::move(scope), always,
          [=](Owner& o, const Argument& a) { o.*member = static_cast<Member>(integer_from(atom_of(a), name, lo, hi)); },
          [=](const Owner& o) { return atom_argument(name, fmt::format("{}", o.*member)); }};
}

template <class E>
KeyRule<Spec> enum_key(std::string_view name, std::vector<Family> scope, bool always, E Spec::*member) {
  return {name, std::move(scope), always,
          [=](Spec& s, const Argument& a) { s.*member = enum_from<E>(atom_of(a), name); },
          [=](const Spec& s) { return atom_argument(name, std::string(name_of(s.*member))); }};
}

template <class Owner>
KeyRule<Owner> decimal_key(std::string_view name, std::vector<ScopeOf<Owner>> scope, bool always,
                           Decimal Owner::*member) {
  return {name, std::move(scope), always,
          [=](Owner& o, const Argument& a) { o.*member = decimal_from(atom_of(a), name); },
          [=](const Owner& o) { return atom_argument(name, (o.*member).text()); }};
}

template <class Owner>
KeyRule<Owner> bool_key(std::string_view name, std::vector<ScopeOf<Owner>> scope, bool Owner::*member) {
  return {name, std::move(scope), false,
          [=](Owner& o, const Argument& a) {
            const std::string& text = atom_of(a);
            if (text != "true" && text != "false")
              throw SpecError(fmt::format("key '{}' expects true|false, found '{}'", name, text));
            o.*member = text == "true";
          },
          [=](const Owner& o) { return atom_argument(name, o.*member ? "true" : "false"); }};
}

KeyRule<FrequencyPlan> optional_decimal_key(std::string_view name, std::vector<PlanKind> scope,
                                            std::optional<Decimal> FrequencyPlan::*member) {
  return {name, std::move(scope), false,
          [=](FrequencyPlan& p, const Argument& a) { p.*member = decimal_from(atom_of(a), name); },
          [=](const FrequencyPlan& p) {
            return atom_argument(name, (p.*member) ? (p.*member)->text() : std::string("unset"));
          }};
}

KeyRule<FrequencyPlan> decimal_list_key(std::string_view name, std::vector<PlanKind> scope,
                                        std::vector<Decimal> FrequencyPlan::*member) {
  return {name, std::move(scope), false,
          [=](FrequencyPlan& p, const Argument& a) {
            if (a.kind != Argument::Kind::list)
              throw SpecError(fmt::format("key '{}' expects a list such as [1,1.5], found '{}'", name, a.atom));
            (p.*member).clear();
            for (const std::string& element : a.list) (p.*member).push_back(decimal_from(element, name));
          },
          [=](const FrequencyPlan& p) {
            std::vector<std::string> texts;
            for (const Decimal& value : p.*member) texts.push_back(value.text());
            return list_argument(name, std::move(texts));
          }};
}

const std::vector<KeyRule<FrequencyPlan>>& plan_rules() {
  using P = PlanKind;
  static const std::vector<KeyRule<FrequencyPlan>> rules{
      decimal_key<FrequencyPlan>("factor", {P::linear, P::dynamic, P::yarn, P::llama3, P::longrope, P::proportional},
                                 true, &FrequencyPlan::factor),
      integer_key<FrequencyPlan>("pairs", {P::proportional}, true, &FrequencyPlan::pairs, 1, 1 << 19),
      integer_key<FrequencyPlan>("orig", {P::dynamic, P::yarn, P::llama3, P::longrope}, true, &FrequencyPlan::orig, 1,
                            1LL << 40),
      {"len", {P::dynamic, P::longrope}, false,
       [](FrequencyPlan& p, const Argument& a) { p.length = integer_from(atom_of(a), "len", 1, 1LL << 40); },
       [](const FrequencyPlan& p) {
         return atom_argument("len", p.length ? fmt::format("{}", *p.length) : std::string("unset"));
       }},
      decimal_key<FrequencyPlan>("beta_fast", {P::yarn}, false, &FrequencyPlan::beta_fast),
      decimal_key<FrequencyPlan>("beta_slow", {P::yarn}, false, &FrequencyPlan::beta_slow),
      optional_decimal_key("mscale", {P::yarn}, &FrequencyPlan::mscale),
      optional_decimal_key("mscale_all_dim", {P::yarn}, &FrequencyPlan::mscale_all_dim),
      optional_decimal_key("attention", {P::yarn, P::longrope}, &FrequencyPlan::attention),
      bool_key<FrequencyPlan>("truncate", {P::yarn}, &FrequencyPlan::truncate),
      decimal_key<FrequencyPlan>("low", {P::llama3}, false, &FrequencyPlan::low),
      decimal_key<FrequencyPlan>("high", {P::llama3}, false, &FrequencyPlan::high),
      decimal_list_key("short", {P::longrope}, &FrequencyPlan::short_factors),
      decimal_list_key("long", {P::longrope}, &FrequencyPlan::long_factors),
      decimal_list_key("freqs", {P::custom}, &FrequencyPlan::freqs),
      decimal_list_key("factors", {P::custom}, &FrequencyPlan::factors),
  };
  return rules;
}

const std::vector<Family> kRotary{Family::rope, Family::xpos, Family::mrope};
const std::vector<Family> kAngular{Family::sinusoidal, Family::rope, Family::xpos, Family::mrope, Family::rope2d, Family::xl};

std::vector<Family> with(std::vector<Family> families, std::initializer_list<Family> more) {
  families.insert(families.end(), more);
  return families;
}

Argument write_plan(const FrequencyPlan& plan);
FrequencyPlan read_plan(const Argument& argument);

const std::vector<KeyRule<Spec>>& spec_rules() {
  using F = Family;
  const std::vector<Family> every_float{F::sinusoidal, F::learned, F::rope, F::xpos, F::mrope, F::rope2d, F::alibi, F::xl};
  static const std::vector<KeyRule<Spec>> rules{
      integer_key<Spec>("d", with(kAngular, {F::learned}), true, &Spec::d, 1, 1 << 20),
      integer_key<Spec>("rows", {F::learned}, true, &Spec::rows, 1, 1LL << 40),
      integer_key<Spec>("heads", {F::alibi}, true, &Spec::heads, 1, 1 << 16),
      integer_key<Spec>("buckets", {F::t5}, true, &Spec::buckets, 1, 1 << 20),
      integer_key<Spec>("max_distance", {F::t5}, true, &Spec::max_distance, 1, 1 << 30),
      bool_key<Spec>("bidirectional", {F::t5}, &Spec::bidirectional),
      integer_key<Spec>("k", {F::shaw}, true, &Spec::k, 1, 1 << 30),
      {"right", {F::shaw}, false,
       [](Spec& s, const Argument& a) { s.right = static_cast<int>(integer_from(atom_of(a), "right", 0, 1 << 30)); },
       [](const Spec& s) { return atom_argument("right", s.right ? fmt::format("{}", *s.right) : std::string("unset")); }},
      decimal_key<Spec>("base", kAngular, true, &Spec::base),
      enum_key("layout", {F::sinusoidal, F::rope, F::xpos, F::mrope, F::rope2d}, true, &Spec::layout),
      {"sections", {F::mrope}, true,
       [](Spec& s, const Argument& a) {
         if (a.kind != Argument::Kind::list)
           throw SpecError(fmt::format("key 'sections' expects a list such as [16,24,24], found '{}'", a.atom));
         s.sections.clear();
         for (const std::string& element : a.list)
           s.sections.push_back(static_cast<int>(integer_from(element, "sections", 1, 1 << 20)));
       },
       [](const Spec& s) {
         std::vector<std::string> texts;
         for (int section : s.sections) texts.push_back(std::to_string(section));
         return list_argument("sections", std::move(texts));
       }},
      enum_key("section_mode", {F::mrope}, false, &Spec::section_mode),
      integer_key<Spec>("rot", kRotary, false, &Spec::rot, 0, 1 << 20),
      enum_key("rot_at", kRotary, false, &Spec::rot_at),
      integer_key<Spec>("sign", with(kRotary, {F::rope2d}), false, &Spec::sign, -1, 1),
      {"scaling", kRotary, false, [](Spec& s, const Argument& a) { s.scaling = read_plan(a); },
       [](const Spec& s) { return write_plan(s.scaling); }},
      decimal_key<Spec>("amp", with(kRotary, {F::rope2d, F::sinusoidal, F::learned}), false, &Spec::amp),
      decimal_key<Spec>("scale_base", {F::xpos}, false, &Spec::scale_base),
      enum_key("role", {F::xpos}, false, &Spec::role),
      enum_key("order", {F::sinusoidal}, false, &Spec::order),
      enum_key("freq", {F::sinusoidal}, false, &Spec::freq),
      integer_key<Spec>("offset", {F::sinusoidal}, false, &Spec::offset, 0, 1LL << 40),
      enum_key("mode", {F::alibi}, false, &Spec::mode),
      integer_key<Spec>("clamp_len", {F::xl}, false, &Spec::clamp_len, 0, 1LL << 40),
      enum_key("dtype", every_float, false, &Spec::dtype),
      enum_key("precision", with(kAngular, {F::alibi}), false, &Spec::precision),
      enum_key("theta", with(kRotary, {F::rope2d, F::sinusoidal, F::xl}), false, &Spec::theta),
      enum_key("cache", with(kRotary, {F::rope2d}), false, &Spec::cache),
      enum_key("math", with(kRotary, {F::rope2d, F::alibi}), false, &Spec::math),
      enum_key("position", {F::rope, F::mrope, F::rope2d}, false, &Spec::position),
      enum_key("slopes", {F::alibi}, false, &Spec::slopes),
  };
  return rules;
}

template <class Owner, class Kind>
void read_arguments(Owner& owner, const Call& call, const std::vector<KeyRule<Owner>>& rules, Kind kind,
                    std::string_view what) {
  std::vector<std::string> seen;
  for (const Argument& argument : call.arguments) {
    auto rule = std::find_if(rules.begin(), rules.end(), [&](const KeyRule<Owner>& r) {
      return r.name == argument.key && std::find(r.scope.begin(), r.scope.end(), kind) != r.scope.end();
    });
    if (rule == rules.end()) {
      std::vector<std::string_view> accepted;
      for (const KeyRule<Owner>& r : rules)
        if (std::find(r.scope.begin(), r.scope.end(), kind) != r.scope.end()) accepted.push_back(r.name);
      throw SpecError(fmt::format("unknown key '{}' for {}; expected one of {}", argument.key, what,
                                  fmt::join(accepted, ", ")));
    }
    if (std::find(seen.begin(), seen.end(), argument.key) != seen.end())
      throw SpecError(fmt::format("key '{}' is given twice in {}", argument.key, what));
    seen.push_back(argument.key);
    rule->read(owner, argument);
  }
}

template <class Owner, class Kind>
std::vector<Argument> write_arguments(const Owner& owner, const Owner& defaults,
                                      const std::vector<KeyRule<Owner>>& rules, Kind kind) {
  std::vector<Argument> out;
  for (const KeyRule<Owner>& rule : rules) {
    if (std::find(rule.scope.begin(), rule.scope.end(), kind) == rule.scope.end()) continue;
    Argument mine = rule.write(owner);
    Call probe_mine{"", {mine}}, probe_default{"", {rule.write(defaults)}};
    if (rule.always_printed || format_call(probe_mine) != format_call(probe_default)) out.push_back(std::move(mine));
  }
  return out;
}

FrequencyPlan plan_defaults(PlanKind kind) {
  FrequencyPlan plan;
  plan.kind = kind;
  if (kind == PlanKind::llama3) {  // Meta's Llama 3.1 values
    plan.factor = Decimal(8);
    plan.orig = 8192;
  }
  return plan;
}

FrequencyPlan read_plan(const Argument& argument) {
  if (argument.kind == Argument::Kind::list)
    throw SpecError("key 'scaling' expects a plan such as linear(factor=2), found a list");
  if (argument.kind == Argument::Kind::atom) {
    if (argument.atom == "none") return FrequencyPlan{};
    throw SpecError(fmt::format("key 'scaling' expects none or a plan such as linear(factor=2), found '{}'",
                                argument.atom));
  }
  const Call& call = argument.call.front();
  PlanKind kind = enum_from<PlanKind>(call.name, "scaling");
  if (kind == PlanKind::none && !call.arguments.empty()) throw SpecError("scaling none(...) takes no keys");
  FrequencyPlan plan = plan_defaults(kind);
  read_arguments(plan, call, plan_rules(), kind, fmt::format("scaling plan '{}'", call.name));
  return plan;
}

Argument write_plan(const FrequencyPlan& plan) {
  if (plan.kind == PlanKind::none) return atom_argument("scaling", "none");
  Argument argument;
  argument.key = "scaling";
  argument.kind = Argument::Kind::call;
  argument.call.push_back(
      Call{std::string(name_of(plan.kind)), write_arguments(plan, plan_defaults(plan.kind), plan_rules(), plan.kind)});
  return argument;
}

Spec family_defaults(Family family) {
  Spec spec;
  spec.family = family;
  const bool interleaved_by_default = family == Family::sinusoidal || family == Family::xpos || family == Family::rope2d;
  spec.layout = interleaved_by_default ? Layout::interleaved : Layout::half;
  return spec;
}

[[noreturn]] void invalid(const Spec& spec, const std::string& why) {
  throw SpecError(fmt::format("{}: {}", family_name(spec.family), why));
}

// Kernels, bounds and most checks read a decimal key in binary64, where a value written
// positive may round to 0, or two written apart to the same double: the refusal says so rather
// than call the value what it is not.
std::string_view binary64_note(const Decimal& a, const Decimal& b) {
  return a.to_double() == b.to_double() && !(a == b) ? " (they are the same in binary64, where kernels compute)" : "";
}

void require_positive(const Spec& spec, const Decimal& value, std::string_view key) {
  if (value.to_double() > 0.0) return;
  if (!value.text().starts_with('-') && value.text() != "0")
    invalid(spec, fmt::format("{}={} is below binary64's smallest positive value (4.9e-324), where kernels compute", key,
                              value.text()));
  invalid(spec, fmt::format("{}={} must be positive", key, value.text()));
}

void validate_plan(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  const std::size_t pairs = static_cast<std::size_t>(spec.rotary_dims() / 2);
  auto require_orig = [&] {
    if (plan.orig < 1) invalid(spec, fmt::format("scaling {} needs orig=<original context length>", name_of(plan.kind)));
  };
  auto require_pairs = [&](const std::vector<Decimal>& list, std::string_view key) {
    if (list.size() != pairs)
      invalid(spec, fmt::format("scaling key '{}' has {} entries but the rotary dims have {} pairs", key, list.size(), pairs));
    for (const Decimal& value : list) require_positive(spec, value, key);
  };
  switch (plan.kind) {
    case PlanKind::none: return;
    case PlanKind::linear: require_positive(spec, plan.factor, "factor"); return;
    case PlanKind::dynamic:
      require_positive(spec, plan.factor, "factor");
      require_orig();
      if (spec.rotary_dims() <= 2) invalid(spec, "dynamic scaling needs rotary dims > 2 (its exponent is d/(d-2))");
      return;
    case PlanKind::yarn:
      require_positive(spec, plan.factor, "factor");
      require_orig();
      require_positive(spec, plan.beta_slow, "beta_slow");
      if (plan.beta_fast.to_double() <= plan.beta_slow.to_double())
        invalid(spec, fmt::format("beta_fast={} must exceed beta_slow={}{}", plan.beta_fast.text(), plan.beta_slow.text(),
                                  binary64_note(plan.beta_fast, plan.beta_slow)));
      if (plan.attention) require_positive(spec, *plan.attention, "attention");
      return;
    case PlanKind::llama3:
      require_positive(spec, plan.factor, "factor");
      require_positive(spec, plan.low, "low");
      if (plan.high.to_double() <= plan.low.to_double())
        invalid(spec, fmt::format("llama3 high={} must exceed low={}{}", plan.high.text(), plan.low.text(),
                                  binary64_note(plan.high, plan.low)));
      return;
    case PlanKind::longrope:
      require_positive(spec, plan.factor, "factor");
      require_orig();
      require_pairs(plan.short_factors, "short");
      require_pairs(plan.long_factors, "long");
      if (plan.attention) require_positive(spec, *plan.attention, "attention");
      return;
    case PlanKind::proportional:
      // transformers' _compute_proportional_rope_parameters: the first `pairs` pairs take
      // base^(-2i/d_rot) / factor, the others frequency 0 (they pass through unrotated).
      require_positive(spec, plan.factor, "factor");
      if (plan.pairs < 1) invalid(spec, "scaling proportional needs pairs=<count of rotating pairs>");
      if (static_cast<std::size_t>(plan.pairs) > pairs)
        invalid(spec, fmt::format("scaling proportional has pairs={} but the rotary dims have {} pairs", plan.pairs, pairs));
      return;
    case PlanKind::custom:
      if (plan.freqs.empty() == plan.factors.empty()) invalid(spec, "scaling custom needs exactly one of freqs=[...] or factors=[...]");
      require_pairs(plan.freqs.empty() ? plan.factors : plan.freqs, plan.freqs.empty() ? "factors" : "freqs");
      return;
  }
}

// ggml's rope_yarn (src/ggml-cpu/ops.cpp) always floors and ceils the ramp ends and forms the
// attention factor itself as 1 + 0.1 ln(1/freq_scale), below 1 where the factor is: the spec's
// YaRN takes that form only with truncate, no attention keys, and a factor of 1 or more.
// ggml's ramp also divides by max(0.001, high - low), which departs from YaRN's where the ends
// cross (low past high, at a small d): there the spec's YaRN is not ggml's.
bool ggml_forms_yarn(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  if (!plan.truncate || plan.attention || plan.mscale || plan.mscale_all_dim || plan.factor.to_double() < 1) return false;
  const auto [low, high] = transformers_yarn_ramp_ends(spec);
  return low <= high;
}

void validate_ggml_yarn(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  if (!plan.truncate) invalid(spec, "theta=ggml floors and ceils YaRN's ramp ends (ggml_rope_yarn_corr_dims); drop truncate=false");
  if (plan.attention || plan.mscale || plan.mscale_all_dim)
    invalid(spec, "theta=ggml forms YaRN's attention factor as 1 + 0.1 ln(factor) (rope_yarn); llama.cpp passes any other as "
                  "attn_factor, which no ggml recipe here models: drop attention=, mscale= and mscale_all_dim=");
  if (plan.factor.to_double() < 1)
    invalid(spec, fmt::format("theta=ggml's YaRN attention factor 1 + 0.1 ln(factor) falls below 1 at factor={}, where "
                              "YaRN's is 1; use a factor of 1 or more",
                              plan.factor.text()));
  if (!ggml_forms_yarn(spec))
    invalid(spec, "theta=ggml's YaRN ramp divides by max(0.001, high - low), which departs from YaRN's where the ramp's ends "
                  "cross, as they do at this d, base, orig and betas; use theta=exact, hf or meta");
}

void validate(const Spec& spec) {
  const bool angular = std::find(kAngular.begin(), kAngular.end(), spec.family) != kAngular.end();
  if ((angular || spec.family == Family::learned) && spec.d == 0) invalid(spec, "key 'd' is required");
  if (angular) require_positive(spec, spec.base, "base");
  require_positive(spec, spec.amp, "amp");
  if (spec.theta != ThetaRecipe::exact) {
    if (spec.precision != PrecisionClass::fp32_angle)
      invalid(spec, fmt::format("theta={} says how a float32 angle is formed; it needs precision=fp32-angle, found {}",
                                name_of(spec.theta), name_of(spec.precision)));
    // The recipes' bounds follow each library's default and linear frequencies (proportional is
    // linear's on its rotating pairs, and 0 on the others), llama3's and YaRN's blends and
    // LongRoPE's factors as transformers (and, for llama3, Meta) form them in float32,
    // transformers' dynamic base, and ggml's YaRN and freq_factors.
    const PlanKind plan = spec.scaling.kind;
    // ggml's running product reaches every pair; it has no frequency 0.
    if (plan == PlanKind::proportional && spec.theta == ThetaRecipe::ggml)
      invalid(spec, "theta=ggml multiplies a running product into every pair and has no zero frequency; scaling "
                    "proportional takes theta=exact, hf or meta");
    if (plan == PlanKind::custom && spec.theta != ThetaRecipe::exact && !spec.scaling.freqs.empty())
      invalid(spec, fmt::format("theta={} forms no explicit frequency list; scaling custom(freqs=...) needs theta=exact, and "
                                "theta=ggml takes custom(factors=...), the divisors of llama.cpp's rope_freqs",
                                name_of(spec.theta)));
    if (plan == PlanKind::yarn && spec.theta == ThetaRecipe::ggml) validate_ggml_yarn(spec);
    // mlx's exp gives 0 below -88, and its bound is for normal results: every exponent -k ln(base)/h
    // stays inside while |ln(base)| < 64.
    if (spec.theta == ThetaRecipe::mlx && std::abs(std::log(spec.base.to_double())) >= 64)
      invalid(spec, fmt::format("theta=mlx forms theta as mlx's float32 exp(-k ln(base)/(d/2)), bounded while |ln(base)| < 64; "
                                "base={} is past it", spec.base.to_double()));
    const std::vector<ThetaRecipe> recipes = theta_recipes(spec);
    if (is_rotary(spec.family) && spec.theta != ThetaRecipe::exp_log &&
        std::find(recipes.begin(), recipes.end(), spec.theta) == recipes.end())
      invalid(spec, fmt::format("theta={} is not defined for scaling {}: hf takes none, linear, dynamic, proportional, "
                                "llama3, yarn and longrope; meta the same but dynamic; ggml none, linear, yarn and "
                                "custom(factors=...); mlx none (rope only); exact every plan",
                                name_of(spec.theta), name_of(spec.scaling.kind)));
    // Each family's recipes are the ones its libraries use: rotary kernels form theta by pow,
    // ggml's running product or mlx's exp, sinusoid tables by powf (hf) or by exp of a multiple of
    // -ln(base)/m (exp-log).
    const bool table = spec.family == Family::sinusoidal || spec.family == Family::xl;
    // mlx.nn.SinusoidalPositionalEncoding's table: geometric frequencies, [sin, cos] in halves, even d.
    const bool mlx_table = spec.theta == ThetaRecipe::mlx && spec.family == Family::sinusoidal;
    if (mlx_table && (spec.freq != FrequencyRule::geometric || spec.layout != Layout::half || spec.d % 2 != 0))
      invalid(spec, fmt::format("theta=mlx forms a sinusoid table as mlx.nn.SinusoidalPositionalEncoding does: freq=geometric, "
                                "layout=half and an even d; found freq={}, layout={}, d={}",
                                name_of(spec.freq), name_of(spec.layout), spec.d));
    const bool table_recipe = spec.theta == ThetaRecipe::hf || spec.theta == ThetaRecipe::exp_log || mlx_table;
    const bool rotary_recipe = spec.theta != ThetaRecipe::exp_log;
    if (!(table ? table_recipe : rotary_recipe))
      invalid(spec, fmt::format("theta={} is not a {} recipe; {} takes theta={}", name_of(spec.theta),
                                table ? "table" : "rotary", family_name(spec.family),
                                !table ? "exact, hf, meta, ggml or mlx"
                                : spec.family == Family::sinusoidal ? "exact, hf, exp-log or mlx" : "exact, hf or exp-log"));
  }
  // Only tables are built in float64 by the libraries this class describes (NumPy's tables in
  // transformers' DistilBERT and Marian); a rotary kernel's float64 angle has no recipe here.
  if (spec.precision == PrecisionClass::fp64_angle && spec.family != Family::sinusoidal && spec.family != Family::xl)
    invalid(spec, fmt::format("precision=fp64-angle describes sinusoid tables built in float64 (sinusoidal, xl); {} takes "
                              "exact-angle, fp32-angle or lowp-cache",
                              family_name(spec.family)));
  if (spec.position != PositionRecipe::fp32 && spec.precision != PrecisionClass::fp32_angle)
    invalid(spec, fmt::format("position={} says how a float32 position is formed; it needs precision=fp32-angle, found {}",
                              name_of(spec.position), name_of(spec.precision)));
  // bf16 arithmetic inside a model of another dtype is Falcon's ALiBi; a rotary kernel's cos/sin
  // and products round in its compute format or its storage.
  if (spec.cache == RoundsIn::bf16)
    invalid(spec, "cache=bf16 is not a place cos and sin are held; cache takes compute or storage");
  if (spec.math == RoundsIn::bf16 && spec.family != Family::alibi)
    invalid(spec, fmt::format("math=bf16 rounds ALiBi's slope, distance and product in bf16 (Falcon); {} takes math=compute "
                              "or math=storage",
                              family_name(spec.family)));
  if (spec.math == RoundsIn::bf16 && spec.dtype == Dtype::bf16)
    invalid(spec, "math=bf16 with dtype=bf16 rounds in the storage dtype; write math=storage");
  if (spec.slopes != SlopeRecipe::exact && spec.precision != PrecisionClass::fp32_angle)
    invalid(spec, fmt::format("slopes={} says how float32 slopes are formed; it needs precision=fp32-angle, found {}",
                              name_of(spec.slopes), name_of(spec.precision)));
  // Reading a pair in one place and writing it in another is a rotary kernel's layout: a table
  // has no input, and rope2d's x and y halves are laid out by their own rule.
  if (spec.layout == Layout::interleaved_to_half && (spec.family == Family::sinusoidal || spec.family == Family::rope2d))
    invalid(spec, "layout=interleaved-to-half reads pairs (2i, 2i+1) and writes (i, i+d/2); it is defined for rope, xpos "
                  "and mrope only; use interleaved or half");
  switch (spec.family) {
    case Family::sinusoidal:
      if (spec.d % 2 != 0 && spec.layout == Layout::interleaved && spec.freq == FrequencyRule::geometric)
        invalid(spec, fmt::format("d={} is odd: layout=interleaved ends in a lone sine for freq=power (DistilBERT) only; "
                                  "freq=geometric (fairseq, tensor2tensor) pads a zero column under layout=half", spec.d));
      if (spec.freq == FrequencyRule::geometric && spec.base.to_double() == 1.0)
        invalid(spec, fmt::format("freq=geometric needs base != 1 (base is the largest timescale){}",
                                  binary64_note(spec.base, Decimal(1))));
      break;
    case Family::learned:
      if (spec.rows == 0) invalid(spec, "key 'rows' (table length) is required");
      break;
    case Family::rope:
    case Family::xpos:
    case Family::mrope: {
      if (spec.rot > spec.d) invalid(spec, fmt::format("rot={} exceeds d={}", spec.rot, spec.d));
      const int rotary = spec.rotary_dims();
      if (rotary % 2 != 0)
        invalid(spec, fmt::format("rotary dims {} are odd but layout={} rotates pairs", rotary, name_of(spec.layout)));
      if (spec.sign == 0) invalid(spec, "sign must be 1 or -1, found 0");
      if (spec.family == Family::xpos) require_positive(spec, spec.scale_base, "scale_base");
      if (spec.family == Family::mrope) {
        if (spec.sections.empty()) invalid(spec, "key 'sections' is required, e.g. sections=[16,24,24]");
        if (spec.sections.size() > 3) invalid(spec, fmt::format("sections has {} entries; at most 3 (t, h, w)", spec.sections.size()));
        const int covered = 2 * std::accumulate(spec.sections.begin(), spec.sections.end(), 0);
        if (covered != rotary)
          invalid(spec, fmt::format("sections cover {} dims (twice their sum) but the rotary dims are {}", covered, rotary));
      }
      validate_plan(spec);
      break;
    }
    case Family::rope2d:
      if (spec.d % 4 != 0) invalid(spec, fmt::format("d={} must be a multiple of 4 (x and y each take d/4 pairs)", spec.d));
      if (spec.sign == 0) invalid(spec, "sign must be 1 or -1, found 0");
      break;
    case Family::t5: {
      const int half = spec.bidirectional ? spec.buckets / 2 : spec.buckets;
      if (half / 2 < 1) invalid(spec, fmt::format("buckets={} leaves no exact buckets", spec.buckets));
      if (spec.max_distance <= half / 2)
        invalid(spec, fmt::format("max_distance={} must exceed the {} exact buckets", spec.max_distance, half / 2));
      break;
    }
    case Family::xl:
      if (spec.d % 2 != 0) invalid(spec, fmt::format("d={} is odd but xl concatenates d/2 sines and d/2 cosines", spec.d));
      break;
    case Family::alibi:
      if (spec.heads == 0) invalid(spec, "key 'heads' (head count) is required");
      break;
    case Family::shaw:
      if (spec.k == 0) invalid(spec, "key 'k' (clipping distance) is required");
      break;
  }
}

Spec spec_from_call(const Call& call) {
  Family family = Family::rope;
  try {
    family = enum_from<Family>(call.name, "family");
  } catch (const SpecError&) {
    throw SpecError(fmt::format("unknown family '{}'; expected one of {}", call.name, choices<Family>()));
  }
  Spec spec = family_defaults(family);
  read_arguments(spec, call, spec_rules(), family, family_name(family));
  if (spec.rot == spec.d) spec.rot = 0;  // all dims rotate: one spelling, so equal specs compare equal
  if (spec.right == spec.k) spec.right.reset();  // a symmetric Shaw window, likewise
  // lowp-cache already holds cos and sin in the storage dtype: one spelling for that too, and no
  // cache=compute contradicting it.
  const bool cache_named = std::any_of(call.arguments.begin(), call.arguments.end(),
                                       [](const Argument& argument) { return argument.key == "cache"; });
  if (cache_named && spec.precision == PrecisionClass::lowp_cache)
    invalid(spec, fmt::format("precision=lowp-cache already rounds cos and sin to the storage dtype (it is exact-angle "
                              "with cache=storage); drop cache={} or write precision=exact-angle,cache=storage",
                              name_of(spec.cache)));
  validate(spec);
  return spec;
}

Call spec_to_call(const Spec& spec) {
  return Call{std::string(family_name(spec.family)),
              write_arguments(spec, family_defaults(spec.family), spec_rules(), spec.family)};
}

}  // namespace

Spec Spec::parse(std::string_view text) { return spec_from_call(parse_call(text)); }

Spec Spec::from_json(const nlohmann::json& json) { return spec_from_call(call_from_json(json, "family")); }

std::string Spec::canonical() const { return format_call(spec_to_call(*this)); }

nlohmann::json Spec::to_json() const { return call_to_json(spec_to_call(*this), "family"); }

std::vector<std::string_view> spec_keys(Family family) {
  std::vector<std::string_view> keys;
  for (const KeyRule<Spec>& rule : spec_rules())
    if (std::find(rule.scope.begin(), rule.scope.end(), family) != rule.scope.end()) keys.push_back(rule.name);
  return keys;
}

const std::vector<Family>& all_families() {
  static const std::vector<Family> families = [] {
    std::vector<Family> out;
    for (const auto& entry : names<Family>()) out.push_back(entry.first);
    return out;
  }();
  return families;
}

std::string_view family_name(Family family) { return name_of(family); }
std::string_view dtype_name(Dtype dtype) { return name_of(dtype); }
std::string_view precision_name(PrecisionClass precision) { return name_of(precision); }
std::string_view theta_recipe_name(ThetaRecipe recipe) { return name_of(recipe); }
std::string_view slope_recipe_name(SlopeRecipe recipe) { return name_of(recipe); }
std::string_view alibi_mode_name(AlibiMode mode) { return name_of(mode); }
std::string_view rounds_in_name(RoundsIn place) { return name_of(place); }
std::string_view position_recipe_name(PositionRecipe recipe) { return name_of(recipe); }
Family family_named(std::string_view text, std::string_view what) { return enum_from<Family>(text, what); }
Dtype dtype_named(std::string_view text, std::string_view what) { return enum_from<Dtype>(text, what); }
PrecisionClass precision_named(std::string_view text, std::string_view what) { return enum_from<PrecisionClass>(text, what); }
RoundsIn rounds_in_named(std::string_view text, std::string_view what) { return enum_from<RoundsIn>(text, what); }

std::vector<ThetaRecipe> theta_recipes(const Spec& spec) {
  using T = ThetaRecipe;
  if (spec.family == Family::sinusoidal || spec.family == Family::xl) return {T::exact, T::hf, T::exp_log};
  if (!is_rotary(spec.family)) return {T::exact};
  switch (spec.scaling.kind) {
    // mlx's fast.rope rotates one axis from a base (or explicit frequencies), with no plan.
    case PlanKind::none:
      return spec.family == Family::rope ? std::vector{T::exact, T::hf, T::meta, T::ggml, T::mlx}
                                         : std::vector{T::exact, T::hf, T::meta, T::ggml};
    case PlanKind::linear: return {T::exact, T::hf, T::meta, T::ggml};
    case PlanKind::yarn:
      return ggml_forms_yarn(spec) ? std::vector{T::exact, T::hf, T::meta, T::ggml} : std::vector{T::exact, T::hf, T::meta};
    case PlanKind::proportional:
    case PlanKind::llama3:
    case PlanKind::longrope: return {T::exact, T::hf, T::meta};
    case PlanKind::dynamic: return {T::exact, T::hf};
    // ggml's freq_factors divide its running product (llama.cpp's rope_freqs); explicit
    // frequencies are no library's recipe.
    case PlanKind::custom: return spec.scaling.factors.empty() ? std::vector{T::exact} : std::vector{T::exact, T::ggml};
  }
  return {T::exact};
}

std::pair<double, double> transformers_yarn_ramp_ends(const Spec& spec) {
  const FrequencyPlan& plan = spec.scaling;
  const int dims = spec.rotary_dims();
  const double base = spec.base.to_double(), orig = static_cast<double>(plan.orig);
  const auto correction = [&](const Decimal& beta) {
    return (dims * std::log(orig / (beta.to_double() * 2 * std::numbers::pi))) / (2 * std::log(base));
  };
  double low = correction(plan.beta_fast), high = correction(plan.beta_slow);
  if (plan.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  return {std::max(low, 0.0), std::min(high, static_cast<double>(dims - 1))};
}

bool is_relative(Family family) {
  return family == Family::alibi || family == Family::t5 || family == Family::shaw || family == Family::xl;
}

bool is_rotary(Family family) {
  return family == Family::rope || family == Family::xpos || family == Family::mrope || family == Family::rope2d;
}

}  // namespace peconform
