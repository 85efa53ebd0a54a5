#pragma once
// A Python callable as a tensor backend: each kernel call hands the callable the call's buffers
// as arrays over their own bytes (dlpack_arrays.hpp), with the GIL taken for the call alone, so
// that the campaign draws and verifies with it released.
//
// The callable's signature by family (the spec is the call's peconform.Spec):
//   rope, xpos, mrope, rope2d: fn(x, positions, spec) -> y, x [batch, seq, heads, d] (a strided
//       view), positions [batch, seq] (mrope: [3, batch, seq], rope2d: [2, batch, seq]); in an
//       in-place call it may instead write x and return None (out of place, x is the input,
//       which it must not write);
//   learned: fn(table, positions, spec) -> [batch, seq, d], table [rows, d];
//   sinusoidal, xl: fn(positions, spec) -> [rows, d] (xl: positions are distances);
//   alibi: fn(queries, keys, spec) -> [heads, queries, keys]; t5, shaw: -> [queries, keys] int32.
// With OutputPassing::argument every signature gains a last argument, out: a view of the call's
// output (of what fn would return; x itself in an in-place call), filled with the output's
// unwritten sentinel, which fn writes and returns None (or out). Otherwise the array fn returns
// is copied into the output, marked as the kernel's own (Buffer::kernel_array) unless it is a
// view of memory peconform staged.
#include <atomic>
#include <memory>
#include <pybind11/pybind11.h>
#include <string>
#include <vector>

#include "backends/tensor_backend.hpp"
#include "python/src/dlpack_arrays.hpp"

namespace peconform::python {

// Whether fn returns its output or writes one peconform hands it.
enum class OutputPassing { returned, argument };
OutputPassing output_passing_named(const std::string& text);

// `patterns` are the specs the callable serves (none: every spec of every family), `takes` the
// calls it takes (in place, out of place or both; never two operands). An exception
// the callable raises fails its case with the traceback (a KernelFailure of kind "exception"), a
// return of the wrong type, dtype or shape fails it naming what was expected ("wrong-return");
// a KeyboardInterrupt raised in it also sets `stop`.
std::unique_ptr<TensorBackend> make_python_tensor_backend(pybind11::object callable, std::string name,
                                                          std::vector<SpecPattern> patterns, CallsTaken takes,
                                                          ArrayKind arrays, OutputPassing output, std::atomic<bool>& stop);

}  // namespace peconform::python
