// peconform reference: the exact (or fast-tier) reference values of a spec as JSON.
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "reference/reference.hpp"
#include "spec/hf_config.hpp"
#include "spec/spec_error.hpp"
#include "tools/commands.hpp"
#include "tools/value_lists.hpp"

namespace peconform {
namespace {

struct ReferenceOptions {
  std::string spec;
  std::string hf_config;
  HfConfigOptions hf_options;
  bool explain = false;
  std::string positions;
  std::string pairs;
  std::string input;
  std::string tier = "exact";
  int digits = 40;
};

HfConfigExplanation read_hf_config(const ReferenceOptions& options) {
  std::ifstream in(options.hf_config);
  if (!in) throw SpecError(fmt::format("cannot read config file '{}'", options.hf_config));
  std::stringstream text;
  text << in.rdbuf();
  return explain_hf_config(text.str(), options.hf_options);
}

nlohmann::ordered_json explanation_as_json(const HfConfigExplanation& explanation) {
  nlohmann::ordered_json out{{"used", explanation.used}, {"ignored", explanation.ignored}, {"defaults", explanation.defaults}};
  if (!explanation.layer_types.empty()) out["layer_types"] = explanation.layer_types;
  return out;
}

std::vector<Point> points_of(const Spec& spec, const ReferenceOptions& options) {
  const bool relative = is_relative(spec.family);
  const char* wanted = relative ? "--pairs" : "--positions";
  const std::string& given = relative ? options.pairs : options.positions;
  if (!(relative ? options.positions : options.pairs).empty())
    throw SpecError(fmt::format("{} takes {}, not {}", family_name(spec.family), wanted, relative ? "--positions" : "--pairs"));
  if (given.empty()) throw SpecError(fmt::format("{} needs {}", family_name(spec.family), wanted));
  return parse_points(spec.family, given);
}

template <class Real> nlohmann::ordered_json evaluate_as_json(const Spec& spec, const std::vector<Point>& points,
                                                      const std::vector<Decimal>& input, int digits) {
  const Reference<Real> reference(spec, sequence_length_for(spec, points));
  if (input.size() != reference.input_size()) {
    const char* what = spec.family == Family::learned ? "the rows*d table" : "one value per dim";
    throw SpecError(fmt::format("{} needs --input with {} values ({}), found {}", spec.canonical(),
                                reference.input_size(), what, input.size()));
  }
  std::vector<Real> values;
  for (const Decimal& value : input) values.push_back(from_decimal<Real>(value));
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  nlohmann::ordered_json boundaries = nlohmann::ordered_json::array();
  for (const Point& point : points) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (const Real& value : reference.evaluate(point, values)) row.push_back(to_decimal_string(value, digits));
    outputs.push_back(std::move(row));
    boundaries.push_back(reference.is_t5_boundary(point));
  }
  nlohmann::ordered_json out{{"outputs", std::move(outputs)}};
  if (spec.family == Family::t5) out["t5_boundary"] = std::move(boundaries);
  return out;
}

void run(const ReferenceOptions& options) {
  std::optional<HfConfigExplanation> explanation;
  if (!options.hf_config.empty()) explanation = read_hf_config(options);
  const Spec spec = explanation ? explanation->spec : Spec::parse(options.spec);
  if (options.explain && options.positions.empty() && options.pairs.empty()) {
    // --explain alone: how the config was read, without reference values.
    nlohmann::ordered_json out{{"spec", spec.canonical()}, {"hf_config", explanation_as_json(*explanation)}};
    fmt::print("{}\n", out.dump(1));
    return;
  }
  const std::vector<Point> points = points_of(spec, options);
  const std::vector<Decimal> input = options.input.empty() ? std::vector<Decimal>{} : parse_decimals(options.input, "--input");
  nlohmann::ordered_json result = options.tier == "exact" ? evaluate_as_json<ExactReal>(spec, points, input, options.digits)
                                                  : evaluate_as_json<FastReal>(spec, points, input, options.digits);
  nlohmann::ordered_json point_texts = nlohmann::ordered_json::array();
  for (const Point& point : points) point_texts.push_back(format_point(spec.family, point));
  nlohmann::ordered_json out{{"spec", spec.canonical()}, {"tier", options.tier}, {"digits", options.digits}};
  out[is_relative(spec.family) ? "pairs" : "positions"] = std::move(point_texts);
  for (auto& [key, value] : result.items()) out[key] = std::move(value);
  if (options.explain) out["hf_config"] = explanation_as_json(*explanation);
  fmt::print("{}\n", out.dump(1));
}

}  // namespace

void add_reference_command(CLI::App& app) {
  auto options = std::make_shared<ReferenceOptions>();
  CLI::App* command = app.add_subcommand("reference", "Print the reference values of a spec as JSON");
  auto* spec = command->add_option("--spec", options->spec, "Spec text, e.g. 'rope(d=4,base=10000,layout=interleaved)'");
  auto* config = command->add_option("--hf-config", options->hf_config, "A Hugging Face config.json to read the spec from");
  spec->excludes(config);
  config->excludes(spec);
  command->add_option("--layer-type", options->hf_options.layer_type,
                      "With --hf-config: the layer type whose rope plan to read, for configs with one per layer type "
                      "(Gemma 3: full_attention, sliding_attention)")
      ->needs(config);
  command->add_flag("--longrope-factor-from-lengths", options->hf_options.longrope_factor_from_lengths,
                    "With --hf-config: derive LongRoPE's factor as max_position_embeddings / "
                    "original_max_position_embeddings, as transformers 4.x did, instead of rope_scaling's factor")
      ->needs(config);
  command->add_option_function<std::string>(
             "--hf-dtype",
             [options](const std::string& text) { options->hf_options.dtype = dtype_named(text, "--hf-dtype"); },
             "With --hf-config: the dtype the model runs in (fp32, bf16, fp16); the spec is then transformers' own "
             "recipe in it (precision=fp32-angle,theta=hf, and for bf16/fp16 cache=storage,math=storage)")
      ->needs(config);
  command->add_flag("--explain", options->explain,
                    "With --hf-config: add which config keys were used, which were ignored and which defaults were "
                    "applied (alone, without --positions or --pairs, print only that)")
      ->needs(config);
  command->add_option("--positions", options->positions, "Comma-separated positions (t:h:w for mrope, x:y for rope2d)");
  command->add_option("--pairs", options->pairs, "Comma-separated i:j query:key pairs (alibi, t5, shaw, xl)");
  command->add_option("--input", options->input, "Comma-separated input vector (rotary) or rows*d table (learned)");
  command->add_option("--digits", options->digits, "Significant digits per value")->check(CLI::Range(2, 55));
  command->add_option("--tier", options->tier, "Reference tier")->check(CLI::IsMember({"exact", "fast"}));
  command->callback([options] {
    if (options->spec.empty() && options->hf_config.empty()) throw SpecError("reference needs --spec or --hf-config");
    run(*options);
  });
}

}  // namespace peconform
