// run_variant_properties: the catalog's properties tagged with a relation for the declared kind,
// then the relations only a variant has, each run by RapidCheck (which shrinks a failing case)
// on the calling thread; over N > 1 axes, also along each axis and across each pair of axes
// where the relation says so (VariantRelation::forms).
#include <fmt/format.h>
#include <rapidcheck.h>

#include <iostream>
#include <sstream>

#include "properties/property.hpp"
#include "properties/variant_relations.hpp"
#include "properties/variant_subject.hpp"

namespace peconform {
namespace {

// A property's seed: the run's seed mixed with its name (FNV-1a, then SplitMix64's finalizer),
// so that each property draws its own cases and keeps them when the catalog grows.
std::uint64_t property_seed(std::uint64_t seed, std::string_view name) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  std::uint64_t z = seed ^ hash;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// RapidCheck's default listener prints a reproduce string when the process exits; a run of
// variant properties reports each property's seed and shrunk case itself.
struct SilentListener final : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// What a counterexample drew, labelled by type; binary128 vectors are the input values.
std::string drawn_text(const std::string& type, const std::string& value) {
  if (type.find("float128") != std::string::npos) return "input values: " + value;
  if (type == "long") return "position: " + value;
  if (type.find("vector<bool") != std::string::npos) return "split (true: x_A): " + value;
  if (type.find("OffsetPattern") != std::string::npos) return "offset: " + value;
  if (type == "int") return "axis: " + value;
  return type + ": " + value;
}

VariantPropertyResult run_one(const VariantRelation& relation, const RelationSubject& subject, VariantPropertyResult out,
                              const VariantRunOptions& options) {
  rc::detail::TestMetadata metadata;
  metadata.id = out.name;
  rc::detail::TestParams params;
  params.seed = out.seed;
  params.maxSuccess = options.cases;
  const VerdictTally before = verdict_tally();
  // RapidCheck announces its configuration on first use; the result says what ran.
  std::ostringstream ignored;
  std::streambuf* const standard_error = std::cerr.rdbuf(ignored.rdbuf());
  SilentListener listener;
  const rc::detail::TestResult result = rc::detail::checkTestable(
      [&] { check_case([&] { relation.check(subject); }); }, metadata, params, listener);
  std::cerr.rdbuf(standard_error);
  const VerdictTally after = verdict_tally();
  out.unconstrained_cases = after.partly_unconstrained_cases - before.partly_unconstrained_cases;
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    out.verdict = VariantVerdict::held;
    out.cases = success.numSuccess;
  } else if (result.match(failure)) {
    out.verdict = VariantVerdict::failed;
    out.cases = failure.numSuccess;
    // checks.cpp's failure text names the process-wide RapidCheck seed, which this run does not
    // use (each property has its own): that line is replaced by the property's seed.
    std::string description = failure.description;
    // RapidCheck opens the description with the RC_FAIL's source line; the relation follows.
    if (const std::size_t start = description.find("RC_FAIL(failure)\n\n"); start != std::string::npos)
      description.erase(0, start + std::string_view("RC_FAIL(failure)\n\n").size());
    if (const std::size_t line = description.find("\n  seed: "); line != std::string::npos)
      description = description.substr(0, line) + "\n  seed: " + std::to_string(out.seed) + " (this property's, as reported)";
    std::ostringstream text;
    text << description << "\n  shrunk counterexample (what the case drew):";
    for (const auto& [type, value] : failure.counterExample) text << "\n    " << drawn_text(type, value);
    out.counterexample = text.str();
  } else if (result.match(gave_up)) {
    // Every case but a few had each of its elements unconstrained (check_case discards those).
    out.verdict = VariantVerdict::not_constrained;
    out.cases = gave_up.numSuccess;
    out.reason = "the declared precision class's bound constrains none of the elements this relation compares in most cases (" +
                 std::to_string(after.wholly_unconstrained_cases - before.wholly_unconstrained_cases) +
                 " cases wholly unconstrained, " + std::to_string(gave_up.numSuccess) +
                 " checked): lower max_position or max_frequency, or declare a tighter class";
  } else if (result.match(error)) {
    throw std::runtime_error(out.name + ": RapidCheck could not run the property: " + error.description);
  }
  return out;
}

// The relations only a variant is checked on: a spec's reference needs no reversibility check,
// and under fp32-angle past 2^24 positions that differ by one are meant to collide.
struct VariantOnlyRelation {
  std::string_view name;
  const VariantRelation* relation;
};
const VariantOnlyRelation kVariantOnlyRelations[] = {{"distinctPositionsGiveDistinctRotations", &kVariantReversible}};

// One run of a relation: over one axis, or over N > 1 as a whole ("all axes"), along axis a
// ("name[axis a]") or across axes a and b ("name[axes a,b]"). Each name has its own seed.
struct Form {
  std::string name, scope;
  std::vector<int> axes;
};

std::vector<Form> forms_of(std::string_view name, const VariantRelation& relation, int axes) {
  std::vector<Form> forms;
  for (const std::vector<int>& scope : axis_scopes(relation.forms, axes)) {
    if (scope.empty())
      forms.push_back({std::string(name), axes > 1 ? "all axes" : "", {}});
    else if (scope.size() == 1)
      forms.push_back({fmt::format("{}[axis {}]", name, scope[0]), fmt::format("axis {}", scope[0]), scope});
    else
      forms.push_back({fmt::format("{}[axes {},{}]", name, scope[0], scope[1]),
                       fmt::format("axes {} and {}", scope[0], scope[1]), scope});
  }
  return forms;
}

void run_relation(std::string_view name, const VariantRelation& relation, const VariantDeclaration& declaration,
                  const RelationSubject& subject, const VariantRunOptions& options, std::vector<VariantPropertyResult>& results) {
  const std::string refusal = relation.refusal(declaration);
  const std::string checked_over = relation.checked_over != nullptr ? relation.checked_over(declaration) : "";
  for (const Form& form : forms_of(name, relation, declaration.axes)) {
    VariantPropertyResult out;
    out.name = form.name;
    out.relation = std::string(relation.statement);
    out.scope = form.scope.empty() ? checked_over : checked_over.empty() ? form.scope : form.scope + "; " + checked_over;
    out.seed = property_seed(options.seed, form.name);
    if (!refusal.empty()) {
      out.verdict = VariantVerdict::refused;
      out.reason = refusal;
      results.push_back(std::move(out));
      continue;
    }
    RelationSubject scoped = subject;
    scoped.scope = form.axes;
    results.push_back(run_one(relation, scoped, std::move(out), options));
  }
}

}  // namespace

std::vector<VariantPropertyResult> run_variant_properties(const VariantKernel& kernel, const VariantDeclaration& declaration,
                                                          const VariantRunOptions& options) {
  validate(declaration);
  if (options.cases < 1) throw VariantError("cases: " + std::to_string(options.cases) + " is not a positive number of cases");
  const RelationSubject subject = variant_subject(kernel, declaration);
  std::vector<VariantPropertyResult> results;
  for (const Property& property : all_properties())
    if (property.variant != nullptr && property.variant->kind == declaration.kind)
      run_relation(property.name, *property.variant, declaration, subject, options, results);
  for (const VariantOnlyRelation& only : kVariantOnlyRelations)
    if (only.relation->kind == declaration.kind) run_relation(only.name, *only.relation, declaration, subject, options, results);
  return results;
}

}  // namespace peconform
