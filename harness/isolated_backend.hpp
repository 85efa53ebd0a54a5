#pragma once
// Runs a backend's kernels in a child process (`peconform run --isolate`), so that a kernel
// that crashes or hangs costs its case, not the campaign. The child is a worker program that
// serves calls over its standard input and output (serve_worker); the parent sends each call as
// plain data (call_wire.hpp), waits up to a timeout, and reads the outputs back. A child that
// dies is reported as a "crash" with its signal, one that does not answer in time is killed and
// reported as a "hang"; either way the next call starts a fresh child.
#include <memory>
#include <string>
#include <vector>

#include "backends/tensor_backend.hpp"

namespace peconform::harness {

// `inner` gives the name, capabilities and point evaluator (properties run in this process);
// `worker` is the command that serves `inner`'s kernels, such as
// {"/proc/self/exe", "worker", "--backend", "cpu"}.
std::unique_ptr<TensorBackend> make_isolated_backend(std::unique_ptr<TensorBackend> inner, std::vector<std::string> worker,
                                                     double case_timeout_seconds);

// The worker's side: serves calls from standard input until it closes. Returns the exit code.
int serve_worker(const TensorBackend& backend);

}  // namespace peconform::harness
