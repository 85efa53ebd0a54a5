#pragma once
// The parts of the compiled module `_peconform`, one area per file, each adding its names to
// the module (module.cpp calls them in order: a later area may use an earlier one's types).
#include <pybind11/pybind11.h>

namespace peconform::python {

void bind_spec(pybind11::module_& module);       // Spec, list_families, SpecError
void bind_reference(pybind11::module_& module);  // reference, reference_digits
void bind_check(pybind11::module_& module);      // the campaign on a Python callable
void bind_properties(pybind11::module_& module); // the catalog's relations on a variant without a Spec

}  // namespace peconform::python
