// peconform.Spec and list_families: the spec text, a Hugging Face config read into a spec, and
// the fields a callable needs to compute what the spec names.
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pybind11/stl.h>
#include <sstream>

#include "python/src/bindings.hpp"
#include "spec/hf_config.hpp"
#include "spec/spec_error.hpp"

namespace py = pybind11;

namespace peconform::python {
namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw SpecError(fmt::format("cannot read config file '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A config given as a dict is read as transformers reads config.json: through its JSON text.
Spec spec_from_hf_config(const py::object& config, const std::string& layer_type, bool longrope_factor_from_lengths,
                         const std::optional<std::string>& dtype) {
  std::string text;
  if (py::isinstance<py::dict>(config)) {
    text = py::module_::import("json").attr("dumps")(config).cast<std::string>();
  } else if (py::isinstance<py::str>(config) || py::hasattr(config, "__fspath__")) {
    text = file_text(py::module_::import("os").attr("fspath")(config).cast<std::string>());
  } else {
    throw py::type_error(fmt::format("Spec.from_hf_config takes a path or a dict, not {}",
                                     py::str(py::type::of(config).attr("__name__")).cast<std::string>()));
  }
  HfConfigOptions options;
  options.layer_type = layer_type;
  options.longrope_factor_from_lengths = longrope_factor_from_lengths;
  if (dtype) options.dtype = dtype_named(*dtype, "dtype");
  return explain_hf_config(text, options).spec;
}

}  // namespace

void bind_spec(py::module_& module) {
  py::register_exception<SpecError>(module, "SpecError", PyExc_ValueError);

  py::class_<Spec>(module, "Spec", "One positional-encoding variant, named completely by its canonical text")
      .def(py::init([](const std::string& text) { return Spec::parse(text); }), py::arg("text"))
      .def_static("from_hf_config", &spec_from_hf_config, py::arg("config"), py::arg("layer_type") = "",
                  py::arg("longrope_factor_from_lengths") = false, py::arg("dtype") = py::none(),
                  "The spec of a Hugging Face config (a config.json path or its dict), read as transformers reads it; "
                  "with dtype (fp32, bf16, fp16), transformers' own recipe in that dtype (float32 theta and angle, "
                  "and for bf16/fp16 cos, sin and the rotation rounded to it)")
      .def_property_readonly("canonical", &Spec::canonical)
      .def_property_readonly("family", [](const Spec& s) { return std::string(family_name(s.family)); })
      .def_property_readonly("d", [](const Spec& s) { return s.d; })
      .def_property_readonly("rotary_dims", &Spec::rotary_dims)
      .def_property_readonly("base", [](const Spec& s) { return s.base.to_double(); })
      .def_property_readonly("dtype", [](const Spec& s) { return std::string(dtype_name(s.dtype)); })
      .def_property_readonly("precision", [](const Spec& s) { return std::string(precision_name(s.precision)); })
      .def_property_readonly("layout", [](const Spec& s) { return s.to_json().value("layout", std::string()); },
                             "The rotary layout (interleaved, half, interleaved_to_half); empty for other families")
      .def_property_readonly("theta", [](const Spec& s) { return std::string(theta_recipe_name(s.theta)); })
      .def_property_readonly("cache", [](const Spec& s) { return std::string(rounds_in_name(s.cache)); },
                             "Where cos and sin are held: compute or storage (lowp-cache holds them in storage too)")
      .def_property_readonly("math", [](const Spec& s) { return std::string(rounds_in_name(s.math)); },
                             "Where the rotation's products and sum round: compute or storage")
      .def_property_readonly("position", [](const Spec& s) { return std::string(position_recipe_name(s.position)); },
                             "How a float32 position is formed under fp32-angle: fp32 (rounded once) or fp32-sum")
      .def_property_readonly("keys", [](const Spec& s) { return py::module_::import("json").attr("loads")(s.to_json().dump()); },
                             "Every key of the spec as a dict (its JSON form), exact decimals as strings")
      .def("__str__", &Spec::canonical)
      .def("__repr__", [](const Spec& s) { return fmt::format("peconform.Spec('{}')", s.canonical()); })
      .def("__eq__", [](const Spec& a, const Spec& b) { return a.canonical() == b.canonical(); })
      .def("__hash__", [](const Spec& s) { return py::hash(py::str(s.canonical())); });

  module.def("list_families", [] {
    std::vector<std::string> names;
    for (const Family family : all_families()) names.emplace_back(family_name(family));
    return names;
  }, "The families a spec may name, in the order `peconform list` prints them");
}

}  // namespace peconform::python
