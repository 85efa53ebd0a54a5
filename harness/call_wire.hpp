#pragma once
// A kernel call and its outputs as bytes on a file descriptor, so that a backend can run in
// another process (harness/isolated_backend.hpp): the spec as its canonical text, every buffer
// with its layout, the ids and the ranges. Only this program reads what it writes (the same
// build on the same machine), so the format is plain length-prefixed little-endian fields.
#include <stdexcept>
#include <string>

#include "backends/kernel_call.hpp"

namespace peconform::harness {

// What every function below throws when the other side has gone (a closed pipe, a short read).
class PipeClosed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void write_call(int fd, const KernelCall& call);
KernelCall read_call(int fd);
void write_outputs(int fd, const KernelCall& call);
void read_outputs(int fd, KernelCall& call);  // into call.outputs, whose layout must match
void write_text(int fd, const std::string& text);
std::string read_text(int fd);
void write_word(int fd, std::uint64_t word);
std::uint64_t read_word(int fd);

}  // namespace peconform::harness
