#include "tensorfiles/call_arrays.hpp"

#include <boost/container_hash/hash.hpp>
#include <cstring>
#include <fmt/format.h>

namespace peconform::tensorfiles {
namespace {

// Calls `visit(storage index, logical index)` for every logical element of `buffer`, in C order.
template <class Visit> void for_each_element(const Buffer& buffer, Visit&& visit) {
  const auto& [batch, seq, heads, d] = buffer.shape;
  std::int64_t logical = 0;
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t s = 0; s < seq; ++s)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t e = 0; e < d; ++e) visit(buffer.offset_of(b, s, h, e), logical++);
}

std::int64_t logical_elements(const Buffer& buffer) {
  return buffer.shape[0] * buffer.shape[1] * buffer.shape[2] * buffer.shape[3];
}

}  // namespace

std::string storage_descr(ElementType type) {
  switch (type) {
    case ElementType::fp64: return "<f8";
    case ElementType::fp32: return "<f4";
    case ElementType::fp16: return "<f2";
    case ElementType::bf16: return "<u2";
    case ElementType::int32: return "<i4";
  }
  return "<f4";
}

std::string storage_note(ElementType type) {
  switch (type) {
    case ElementType::fp64: return "fp64";
    case ElementType::fp32: return "fp32";
    case ElementType::fp16: return "fp16";
    case ElementType::bf16: return "bf16 bits as uint16";
    case ElementType::int32: return "int32";
  }
  return "fp32";
}

std::vector<std::int64_t> shown_shape(const Buffer& buffer, Family family, bool input) {
  const auto& shape = buffer.shape;
  if (is_rotary(family)) return {shape[0], shape[1], shape[2], shape[3]};
  switch (family) {
    case Family::learned: return input ? std::vector<std::int64_t>{shape[2], shape[3]} : std::vector<std::int64_t>{shape[0], shape[1], shape[3]};
    case Family::sinusoidal:
    case Family::xl: return {shape[1], shape[3]};
    case Family::alibi: return {shape[1], shape[2], shape[3]};
    default: return {shape[2], shape[3]};
  }
}

std::vector<std::byte> logical_bytes(const Buffer& buffer) {
  const std::size_t size = element_size(buffer.type);
  std::vector<std::byte> out(static_cast<std::size_t>(logical_elements(buffer)) * size);
  for_each_element(buffer, [&](std::int64_t storage, std::int64_t logical) {
    std::memcpy(out.data() + static_cast<std::size_t>(logical) * size, buffer.bytes.data() + static_cast<std::size_t>(storage) * size, size);
  });
  return out;
}

void set_logical_bytes(Buffer& buffer, std::span<const std::byte> bytes) {
  const std::size_t size = element_size(buffer.type);
  if (bytes.size() != static_cast<std::size_t>(logical_elements(buffer)) * size)
    throw std::logic_error(fmt::format("{} bytes for a buffer of {} elements of {} bytes", bytes.size(), logical_elements(buffer), size));
  for_each_element(buffer, [&](std::int64_t storage, std::int64_t logical) {
    std::memcpy(buffer.bytes.data() + static_cast<std::size_t>(storage) * size, bytes.data() + static_cast<std::size_t>(logical) * size, size);
  });
}

std::uint64_t call_fingerprint(const KernelCall& call) {
  std::size_t seed = input_fingerprint(call);
  boost::hash_combine(seed, call.spec.canonical());
  for (const std::int64_t value : {call.sequence_length, call.batch, call.seq, call.id_offset, call.first, call.rows, call.key_first, call.keys,
                                   std::int64_t{call.in_place}, std::int64_t{call.axes}, std::int64_t{call.ids64}})
    boost::hash_combine(seed, value);
  for (const Buffer& output : call.outputs)
    for (std::size_t axis = 0; axis < 4; ++axis) {
      boost::hash_combine(seed, output.shape[axis]);
      boost::hash_combine(seed, output.stride[axis]);
    }
  return static_cast<std::uint64_t>(seed);
}

}  // namespace peconform::tensorfiles
