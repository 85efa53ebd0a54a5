// The compiled part of the `peconform` package (python/peconform/__init__.py wraps it).
#include "python/src/bindings.hpp"

PYBIND11_MODULE(_peconform, module) {
  module.doc() = "peconform's compiled core: specs, the reference and the conformance campaign";
  peconform::python::bind_spec(module);
  peconform::python::bind_reference(module);
  peconform::python::bind_check(module);
  peconform::python::bind_properties(module);
}
