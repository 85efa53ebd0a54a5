// peconform.reference and reference_digits: the reference values of a spec at given points, in
// the fast tier (binary128) or the exact tier (MPFR), as `peconform reference` prints them.
#include <fmt/format.h>
#include <optional>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "python/src/bindings.hpp"
#include "reference/reference.hpp"
#include "spec/spec_error.hpp"

namespace py = pybind11;

namespace peconform::python {
namespace {

using Int64Array = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using DoubleArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

// Positions as one integer each (rope, xpos, sinusoidal, learned), or rows of 3 (mrope t, h, w)
// or of 2 (rope2d x, y; relative families' query, key).
std::vector<Point> points_of(const Spec& spec, const py::object& given) {
  // Integers only: a float position would be truncated without a word by the cast to int64.
  const py::array as_array = py::array::ensure(given);
  if (!as_array || (as_array.dtype().kind() != 'i' && as_array.dtype().kind() != 'u'))
    throw py::type_error(fmt::format("positions must be integers (a list or an integer array), not {}",
                                     as_array ? py::str(as_array.dtype()).cast<std::string>() : py::str(py::type::of(given)).cast<std::string>()));
  const Int64Array positions = Int64Array::ensure(as_array);
  if (!positions) throw py::type_error("positions must fit in int64");
  const int arity = point_arity(spec.family);
  const bool flat = arity == 1 && positions.ndim() == 1;
  if (!flat && !(positions.ndim() == 2 && positions.shape(1) == arity))
    throw SpecError(fmt::format("{} takes positions as {}; got an array of {} dimensions", family_name(spec.family),
                                arity == 1 ? "a 1-D array" : fmt::format("rows of {} ({})", arity, is_relative(spec.family) ? "query, key" : "coordinates"),
                                positions.ndim()));
  std::vector<Point> points(static_cast<std::size_t>(positions.shape(0)));
  const std::int64_t* data = positions.data();
  for (std::size_t p = 0; p < points.size(); ++p)
    for (int c = 0; c < arity; ++c) points[p].c[static_cast<std::size_t>(c)] = data[p * static_cast<std::size_t>(arity) + static_cast<std::size_t>(c)];
  return points;
}

// The input of each point: none, one vector for every point, or one row per point.
template <class Real> std::vector<std::vector<Real>> inputs_of(const Reference<Real>& reference, const py::object& x, std::size_t points) {
  const std::size_t size = reference.input_size();
  if (x.is_none()) {
    if (size != 0)
      throw SpecError(fmt::format("{} needs x: {} values ({})", reference.spec().canonical(), size,
                                  reference.spec().family == Family::learned ? "the rows*d table" : "one per dim"));
    return std::vector<std::vector<Real>>(points);
  }
  const DoubleArray values = DoubleArray::ensure(x);
  if (!values) throw py::type_error("x must be numbers (a list or a float array)");
  const bool one = values.ndim() == 1 && static_cast<std::size_t>(values.shape(0)) == size;
  const bool each = values.ndim() == 2 && static_cast<std::size_t>(values.shape(0)) == points && static_cast<std::size_t>(values.shape(1)) == size;
  if (!one && !each)
    throw SpecError(fmt::format("{} takes x as {} values, or one row of {} per position ({} positions)", reference.spec().canonical(),
                                size, size, points));
  std::vector<std::vector<Real>> out(points);
  for (std::size_t p = 0; p < points; ++p)
    for (std::size_t i = 0; i < size; ++i) out[p].push_back(Real(values.data()[(each ? p * size : 0) + i]));  // doubles are exact in both tiers
  return out;
}

template <class Real, class Emit>
void evaluate(const Spec& spec, const py::object& positions, const py::object& x, std::optional<std::int64_t> sequence_length, Emit emit) {
  const std::vector<Point> points = points_of(spec, positions);
  const Reference<Real> reference(spec, sequence_length.value_or(sequence_length_for(spec, points)));
  const std::vector<std::vector<Real>> inputs = inputs_of(reference, x, points.size());
  for (std::size_t p = 0; p < points.size(); ++p) emit(p, reference.output_size(), reference.evaluate(points[p], inputs[p]));
}

template <class Real> py::array reference_array(const Spec& spec, const py::object& positions, const py::object& x, std::optional<std::int64_t> length) {
  std::vector<double> values;
  std::size_t width = 0;
  evaluate<Real>(spec, positions, x, length, [&](std::size_t, std::size_t size, const std::vector<Real>& row) {
    width = size;
    for (const Real& value : row) values.push_back(static_cast<double>(value));
  });
  const std::size_t rows = width == 0 ? 0 : values.size() / width;
  DoubleArray out({rows, width});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace

void bind_reference(py::module_& module) {
  module.def(
      "reference",
      [](const Spec& spec, const py::object& positions, const py::object& x, const std::string& tier, std::optional<std::int64_t> sequence_length) {
        if (tier == "fast") return reference_array<FastReal>(spec, positions, x, sequence_length);
        if (tier == "exact") return reference_array<ExactReal>(spec, positions, x, sequence_length);
        throw SpecError(fmt::format("tier is '{}'; expected 'fast' or 'exact'", tier));
      },
      py::arg("spec"), py::arg("positions"), py::arg("x") = py::none(), py::arg("tier") = "fast", py::arg("sequence_length") = py::none(),
      "The reference values at each position as a float64 array [positions, outputs], each rounded once to double");
  module.def(
      "reference_digits",
      [](const Spec& spec, const py::object& positions, const py::object& x, int digits, std::optional<std::int64_t> sequence_length) {
        // The exact tier carries 60 significant digits; beyond 55 its last digits are not all correct.
        if (digits < 2 || digits > 55) throw SpecError(fmt::format("digits is {}; expected 2 to 55 (the exact tier's precision)", digits));
        std::vector<std::vector<std::string>> out;
        evaluate<ExactReal>(spec, positions, x, sequence_length, [&](std::size_t, std::size_t, const std::vector<ExactReal>& row) {
          std::vector<std::string>& texts = out.emplace_back();
          for (const ExactReal& value : row) texts.push_back(to_decimal_string(value, digits));
        });
        return out;
      },
      py::arg("spec"), py::arg("positions"), py::arg("x") = py::none(), py::arg("digits") = 40, py::arg("sequence_length") = py::none(),
      "The exact tier's values at each position as decimal strings of `digits` significant digits");
}

}  // namespace peconform::python
