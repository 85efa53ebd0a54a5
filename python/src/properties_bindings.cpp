// peconform._properties: the catalog's relations that need only the implementation
// (properties/variant.hpp), run on a Python callable that has no Spec. The callable is reached
// through an adapter that python/peconform/__init__.py's properties() builds: it takes and
// returns float64 NumPy arrays, and converts to and from the declared dtype and array library
// itself. The properties run on the calling thread (RapidCheck is not thread-safe), so the GIL
// stays held throughout.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "properties/variant.hpp"
#include "python/src/bindings.hpp"
#include "spec/spec_error.hpp"

namespace py = pybind11;

namespace peconform::python {
namespace {

using Int64Array = py::array_t<std::int64_t, py::array::c_style>;
using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Positions as the callable takes them: [rows] over one axis (as before axes existed), [rows,
// axes] over several.
Int64Array position_array(const std::vector<std::int64_t>& values, int axes) {
  const auto count = static_cast<py::ssize_t>(values.size());
  Int64Array out = axes == 1 ? Int64Array(count) : Int64Array({count / axes, static_cast<py::ssize_t>(axes)});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

// The adapter: adapter(positions, keys, inputs) -> rows x d float64, where keys is None but for
// a bias and inputs None but for a rotary variant (rows x d).
class PythonVariantKernel final : public VariantKernel {
 public:
  PythonVariantKernel(py::object adapter, const VariantDeclaration& declaration)
      : adapter_(std::move(adapter)), d_(declaration.d), axes_(declaration.axes) {}

  std::vector<double> evaluate(const VariantBatch& batch) const override {
    const std::size_t rows = batch.rows();
    const auto d = static_cast<std::size_t>(d_);
    py::object keys = py::none(), inputs = py::none();
    if (!batch.keys.empty()) keys = position_array(batch.keys, axes_);
    if (!batch.inputs.empty()) {
      DoubleArray x({rows, d});
      std::copy(batch.inputs.begin(), batch.inputs.end(), x.mutable_data());
      inputs = x;
    }
    py::object answer;
    try {
      answer = adapter_(position_array(batch.positions, axes_), keys, inputs);
    } catch (py::error_already_set& error) {
      // The property that called fails with the Python error's text; KeyboardInterrupt stops all.
      if (error.matches(PyExc_KeyboardInterrupt)) throw;
      throw std::runtime_error(fmt::format("the variant raised {}", error.what()));
    }
    const DoubleArray values = DoubleArray::ensure(answer);
    if (!values || values.ndim() != 2 || static_cast<std::size_t>(values.shape(0)) != rows ||
        static_cast<std::size_t>(values.shape(1)) != d)
      throw std::runtime_error(fmt::format("wrong-return: the variant returned {} where {} x {} values were expected",
                                           py::str(py::getattr(answer, "shape", py::type::of(answer))).cast<std::string>(), rows, d));
    return {values.data(), values.data() + values.size()};
  }

 private:
  py::object adapter_;
  int d_, axes_;
};

ThetaRecipe theta_named(std::string_view text) {
  for (const ThetaRecipe recipe :
       {ThetaRecipe::exact, ThetaRecipe::hf, ThetaRecipe::meta, ThetaRecipe::ggml, ThetaRecipe::mlx, ThetaRecipe::exp_log})
    if (theta_recipe_name(recipe) == text) return recipe;
  throw VariantError(fmt::format("theta: '{}' is not a recipe; expected exact, hf, meta, ggml, mlx or exp-log", text));
}

RotaryPlacement placement_named(std::string_view text) {
  if (text == "first") return RotaryPlacement::first;
  if (text == "last") return RotaryPlacement::last;
  throw VariantError(fmt::format("rot_at: '{}' is not a placement; expected first or last", text));
}

Decimal decimal_named(const py::object& value, std::string_view what) {
  const std::string text = py::str(value).cast<std::string>();
  try {
    return Decimal::parse(text);
  } catch (const SpecError& error) {
    throw VariantError(fmt::format("{}: '{}' is not a decimal number ({})", what, text, error.what()));
  }
}

py::dict run(const py::object& adapter, const py::dict& declared, std::uint64_t seed, int cases) {
  VariantDeclaration declaration;
  declaration.kind = variant_kind_named(declared["kind"].cast<std::string>());
  declaration.d = declared["d"].cast<int>();
  declaration.dtype = dtype_named(declared["dtype"].cast<std::string>(), "dtype");
  declaration.precision = precision_named(declared["precision"].cast<std::string>(), "precision");
  declaration.pairing = variant_pairing_named(declared["pairing"].cast<std::string>());
  declaration.rot = declared["rot"].cast<int>();
  declaration.rot_at = placement_named(declared["rot_at"].cast<std::string>());
  declaration.amplitude = decimal_named(declared["amplitude"], "amplitude");
  declaration.max_frequency = decimal_named(declared["max_frequency"], "max_frequency");
  declaration.theta = theta_named(declared["theta"].cast<std::string>());
  declaration.base = decimal_named(declared["base"], "base");
  declaration.max_position = declared["max_position"].cast<std::int64_t>();
  declaration.negative_positions = declared["negative_positions"].cast<bool>();
  declaration.symmetric = declared["symmetric"].cast<bool>();
  declaration.axes = declared["axes"].cast<int>();
  declaration.axis_max_positions = declared["axis_max_positions"].cast<std::vector<std::int64_t>>();
  if (cases < 1) throw VariantError(fmt::format("cases: {} is not a count of cases; expected 1 or more", cases));

  const PythonVariantKernel kernel(adapter, declaration);
  py::list out;
  for (const VariantPropertyResult& result : run_variant_properties(kernel, declaration, {seed, cases})) {
    py::dict entry;
    entry["name"] = result.name;
    entry["relation"] = result.relation;
    entry["scope"] = result.scope;
    entry["verdict"] = std::string(variant_verdict_name(result.verdict));
    entry["reason"] = result.reason;
    entry["counterexample"] = result.counterexample;
    entry["seed"] = result.seed;
    entry["cases"] = result.cases;
    entry["unconstrained_cases"] = result.unconstrained_cases;
    out.append(entry);
  }
  py::dict answer;
  answer["variant"] = variant_text(declaration);
  answer["properties"] = out;
  return answer;
}

}  // namespace

void bind_properties(py::module_& module) {
  py::register_exception<VariantError>(module, "VariantError", PyExc_ValueError);
  module.def("_properties", &run, py::arg("adapter"), py::arg("declaration"), py::arg("seed"), py::arg("cases"),
             "The catalog's relations that need only the implementation, on a variant without a Spec (see properties()).");
}

}  // namespace peconform::python
