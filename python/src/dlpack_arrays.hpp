#pragma once
// Arrays crossing between a kernel call and Python through the DLPack protocol (`__dlpack__`
// capsules): a call's buffer handed out as a NumPy array or a torch tensor over a staged copy of
// the buffer's bytes that Python owns (one copy in, one back), and whatever DLPack producer a
// callable returns read back into the call's output buffer, element by element through both
// sides' strides.
#include <pybind11/pybind11.h>
#include <string>

#include "backends/plugin/dl_tensor_view.hpp"

namespace peconform::python {

// How a callable is handed its arrays.
enum class ArrayKind { numpy, torch };
ArrayKind array_kind_named(const std::string& text);

// Registers the exporting type (`_DLPackView`) in the module; before any array_over().
void register_dlpack_view(pybind11::module_& module);

// A stretch of a call's memory (a whole buffer, guards and padding included, or the ids) copied
// into memory Python owns, so that the arrays handed to a callable stay valid however long it
// keeps them; write_back() copies the stretch back after the call, so that what the callable
// wrote anywhere in it (in place, into its input, into a guard) reaches the verifier as written.
class StagedMemory {
 public:
  StagedMemory(void* data, std::size_t size);
  // `tensor`, a view into the call's stretch, as the same view into the staged copy.
  DLTensor over(const DLTensor& tensor) const;
  const pybind11::object& owner() const { return staged_; }
  // Whether `address` lies in the staged copy (an array a callable returned may be a view of it).
  bool holds(const void* address) const;
  void write_back() const;

 private:
  std::byte* data_;
  std::size_t size_;
  pybind11::object staged_;  // a NumPy uint8 array, which owns staged_data_
  std::byte* staged_data_ = nullptr;
};

// An array of `kind` over `tensor`'s memory (a host tensor whose shape and strides are copied),
// which keeps `owner` alive as long as it lives.
pybind11::object array_over(const DLTensor& tensor, ArrayKind kind, const pybind11::object& owner);
// An array of `kind` that owns a copy of `values` (positions computed for the call).
pybind11::object int64_array(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& shape, ArrayKind kind);

// Copies `returned` (any object with __dlpack__: a NumPy array, a torch tensor, ...) into
// `into`, a host tensor of the call, and returns the address its elements came from (to compare
// with StagedMemory::holds, never to read: the array may be gone). Throws WrongReturn naming
// what was expected when it is not a DLPack producer, or not on the host, or its dtype or shape
// differ from `into`'s.
class WrongReturn : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
const void* copy_returned(const pybind11::handle& returned, const DLTensor& into);

// "float32", "bfloat16", "int64", ...: a DLPack dtype as NumPy and torch name it.
std::string dtype_text(DLDataType dtype);

}  // namespace peconform::python
