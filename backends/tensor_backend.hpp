#pragma once
// The interface the campaign holds a backend to: whole kernel calls on strided tensors, the way
// a model calls them, rather than one point at a time (implementation.hpp). Our CPU kernels
// (cpu/cpu_tensor_backend.hpp) and the two reference tiers (reference_tensor_backend.hpp)
// implement it; plugins (C ABI), Python callables and GPU backends (OpenCL, CUDA) implement the
// same interface, each in its own folder beside its kernels. A call is plain data
// (kernel_call.hpp): a backend copies it to wherever its kernel runs (a device, a child
// process) and copies the outputs back.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/implementation.hpp"
#include "backends/kernel_call.hpp"
#include "spec/spec_pattern.hpp"

namespace peconform {

// What a backend throws when its kernel crashed or hung (an isolated backend's child died or
// ran out of time), as opposed to refusing the call (SpecError): the campaign reports a failure
// of this kind ("crash", "hang") and goes on with the next case.
class KernelFailure : public std::runtime_error {
 public:
  KernelFailure(std::string kind, const std::string& message) : std::runtime_error(message), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// The calls a kernel takes; the campaign draws no other (a plugin's PEC_TAKES_* flags).
struct CallsTaken {
  bool out_of_place = true, in_place = true;
  bool ids32 = true, ids64 = true;
  bool strided = true;      // any axis order and padding; else contiguous [batch, seq, heads, d]
  bool key_operand = true;  // queries and keys in one call
};

struct BackendCapabilities {
  std::vector<Family> families;
  std::vector<Dtype> dtypes;
  std::vector<PrecisionClass> precisions;
  // Whether the backend takes `cache` and `math` (docs/precision.md): the campaign then draws the fp16 and
  // bf16 rotary cells' cases with both at storage every other cycle of cells. A backend with
  // patterns says so in them.
  bool takes_rounding_keys = false;
  // The most output elements one call may have: a device's memory, or a slow reference's time.
  std::int64_t largest_call_elements = std::int64_t{1} << 28;
  // The campaign always calls run() from the thread that made the backend, one call at a time,
  // and verifies on the whole OpenMP team; this says the backend relies on that (a Python
  // callable under the GIL), so that a future scheduler keeps it.
  bool calling_thread_only = false;
  // The specs the backend serves, when it serves fewer than every spec of `families` (a
  // plugin's kernel): the campaign draws each cell's specs from its pattern.
  std::vector<SpecPattern> patterns;
  CallsTaken takes;
};

class TensorBackend {
 public:
  virtual ~TensorBackend() = default;
  virtual std::string name() const = 0;
  virtual BackendCapabilities capabilities() const = 0;
  // Reads call.inputs and the ids, writes call.outputs. Throws SpecError for a call it refuses.
  virtual void run(KernelCall& call) const = 0;
  // The same kernels one point at a time, for the property catalog; null if there are none.
  virtual const Implementation* points() const { return nullptr; }
};

}  // namespace peconform
