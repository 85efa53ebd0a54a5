#pragma once
// Arrays crossing between a kernel call and Python through the DLPack protocol (`__dlpack__`
// capsules), without a copy: a call's buffer handed out as a NumPy array or a torch tensor over
// the buffer's own bytes, and whatever DLPack producer a callable returns read back into the
// call's output buffer, element by element through both sides' strides.
#include <pybind11/pybind11.h>
#include <string>

#include "backends/plugin/dl_tensor_view.hpp"

namespace peconform::python {

// How a callable is handed its arrays.
enum class ArrayKind { numpy, torch };
ArrayKind array_kind_named(const std::string& text);

// Registers the exporting type (`_DLPackView`) in the module; before any array_over().
void register_dlpack_view(pybind11::module_& module);

// An array of `kind` over `tensor`'s memory (a host tensor whose shape and strides are copied).
// The array must not outlive the memory: a callable may not keep it after it returns.
pybind11::object array_over(const DLTensor& tensor, ArrayKind kind);
// An array of `kind` that owns a copy of `values` (positions computed for the call).
pybind11::object int64_array(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& shape, ArrayKind kind);

// Copies `returned` (any object with __dlpack__: a NumPy array, a torch tensor, ...) into
// `into`, a host tensor of the call. Throws WrongReturn naming what was expected when it is not
// a DLPack producer, or not on the host, or its dtype or shape differ from `into`'s.
class WrongReturn : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
void copy_returned(const pybind11::handle& returned, const DLTensor& into);

// "float32", "bfloat16", "int64", ...: a DLPack dtype as NumPy and torch name it.
std::string dtype_text(DLDataType dtype);

}  // namespace peconform::python
