#include "harness/call_wire.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

namespace peconform::harness {
namespace {

void write_bytes(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw PipeClosed("the pipe closed while writing");
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
}

void read_bytes(int fd, void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t got = ::read(fd, bytes, size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw PipeClosed("the pipe closed while reading");
    bytes += got;
    size -= static_cast<std::size_t>(got);
  }
}

void write_buffer(int fd, const Buffer& buffer) {
  write_word(fd, static_cast<std::uint64_t>(buffer.type));
  for (const std::int64_t v : buffer.shape) write_word(fd, static_cast<std::uint64_t>(v));
  for (const std::int64_t v : buffer.stride) write_word(fd, static_cast<std::uint64_t>(v));
  write_word(fd, static_cast<std::uint64_t>(buffer.origin));
  write_word(fd, buffer.bytes.size());
  write_bytes(fd, buffer.bytes.data(), buffer.bytes.size());
}

Buffer read_buffer(int fd) {
  Buffer buffer;
  buffer.type = static_cast<ElementType>(read_word(fd));
  for (std::int64_t& v : buffer.shape) v = static_cast<std::int64_t>(read_word(fd));
  for (std::int64_t& v : buffer.stride) v = static_cast<std::int64_t>(read_word(fd));
  buffer.origin = static_cast<std::int64_t>(read_word(fd));
  buffer.bytes.resize(read_word(fd));
  read_bytes(fd, buffer.bytes.data(), buffer.bytes.size());
  return buffer;
}

template <class T> void write_vector(int fd, const std::vector<T>& values) {
  write_word(fd, values.size());
  write_bytes(fd, values.data(), values.size() * sizeof(T));
}

template <class T> std::vector<T> read_vector(int fd) {
  std::vector<T> values(read_word(fd));
  read_bytes(fd, values.data(), values.size() * sizeof(T));
  return values;
}

}  // namespace

void write_word(int fd, std::uint64_t word) { write_bytes(fd, &word, sizeof word); }

std::uint64_t read_word(int fd) {
  std::uint64_t word = 0;
  read_bytes(fd, &word, sizeof word);
  return word;
}

void write_text(int fd, const std::string& text) {
  write_word(fd, text.size());
  write_bytes(fd, text.data(), text.size());
}

std::string read_text(int fd) {
  std::string text(read_word(fd), '\0');
  read_bytes(fd, text.data(), text.size());
  return text;
}

void write_call(int fd, const KernelCall& call) {
  write_text(fd, call.spec.canonical());
  for (const std::int64_t v : {call.sequence_length, std::int64_t{call.in_place}, call.batch, call.seq, std::int64_t{call.axes},
                               std::int64_t{call.ids64}, call.id_offset, call.first, call.rows, call.key_first, call.keys})
    write_word(fd, static_cast<std::uint64_t>(v));
  write_vector(fd, call.ids64_data);
  write_vector(fd, call.ids32_data);
  write_word(fd, call.inputs.size());
  for (const Buffer& buffer : call.inputs) write_buffer(fd, buffer);
  write_word(fd, call.outputs.size());
  for (const Buffer& buffer : call.outputs) write_buffer(fd, buffer);
}

KernelCall read_call(int fd) {
  KernelCall call;
  call.spec = Spec::parse(read_text(fd));
  auto next = [fd] { return static_cast<std::int64_t>(read_word(fd)); };
  call.sequence_length = next();
  call.in_place = next() != 0;
  call.batch = next();
  call.seq = next();
  call.axes = static_cast<int>(next());
  call.ids64 = next() != 0;
  call.id_offset = next();
  call.first = next();
  call.rows = next();
  call.key_first = next();
  call.keys = next();
  call.ids64_data = read_vector<std::int64_t>(fd);
  call.ids32_data = read_vector<std::int32_t>(fd);
  for (std::uint64_t i = read_word(fd); i > 0; --i) call.inputs.push_back(read_buffer(fd));
  for (std::uint64_t i = read_word(fd); i > 0; --i) call.outputs.push_back(read_buffer(fd));
  return call;
}

void write_outputs(int fd, const KernelCall& call) {
  write_word(fd, call.outputs.size());
  for (const Buffer& buffer : call.outputs) {
    write_word(fd, buffer.bytes.size());
    write_bytes(fd, buffer.bytes.data(), buffer.bytes.size());
  }
}

void read_outputs(int fd, KernelCall& call) {
  if (read_word(fd) != call.outputs.size()) throw std::runtime_error("the worker returned another number of outputs");
  for (Buffer& buffer : call.outputs) {
    if (read_word(fd) != buffer.bytes.size()) throw std::runtime_error("the worker returned an output of another size");
    read_bytes(fd, buffer.bytes.data(), buffer.bytes.size());
  }
}

}  // namespace peconform::harness
