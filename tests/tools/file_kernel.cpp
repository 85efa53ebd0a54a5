#include "tools/file_kernel.hpp"

#include <cstring>
#include <stdexcept>

#include "tensorfiles/call_arrays.hpp"
#include "tensorfiles/manifest.hpp"
#include "tensorfiles/npy_file.hpp"

namespace peconform::testing {
namespace {

using tensorfiles::ArrayFile;

// The [batch, seq, heads, d] buffer shape of a file's shape (the inverse of shown_shape).
std::array<std::int64_t, 4> buffer_shape(Family family, const std::vector<std::int64_t>& shown, bool input) {
  if (is_rotary(family)) return {shown.at(0), shown.at(1), shown.at(2), shown.at(3)};
  switch (family) {
    case Family::learned: return input ? std::array<std::int64_t, 4>{1, 1, shown.at(0), shown.at(1)} : std::array<std::int64_t, 4>{shown.at(0), shown.at(1), 1, shown.at(2)};
    case Family::sinusoidal:
    case Family::xl: return {1, shown.at(0), 1, shown.at(1)};
    case Family::alibi: return {1, shown.at(0), shown.at(1), shown.at(2)};
    default: return {1, 1, shown.at(0), shown.at(1)};
  }
}

ElementType type_of(const std::string& descr) {
  if (descr == "<f8") return ElementType::fp64;
  if (descr == "<f4") return ElementType::fp32;
  if (descr == "<f2") return ElementType::fp16;
  if (descr == "<u2") return ElementType::bf16;
  if (descr == "<i4") return ElementType::int32;
  throw std::runtime_error("unexpected dtype " + descr);
}

// A contiguous buffer (guards around it, as every Buffer has) of the file's shape.
Buffer plain_buffer(Family family, const ArrayFile& file, bool input) {
  Buffer buffer;
  buffer.type = type_of(file.descr);
  buffer.shape = buffer_shape(family, file.shape, input);
  buffer.stride = {buffer.shape[1] * buffer.shape[2] * buffer.shape[3], buffer.shape[2] * buffer.shape[3], buffer.shape[3], 1};
  const std::int64_t elements = buffer.shape[0] * buffer.stride[0];
  buffer.bytes.resize(static_cast<std::size_t>(elements + 2 * kGuardElements) * element_size(buffer.type), std::byte{});
  return buffer;
}

}  // namespace

void run_kernel_on_files(const TensorBackend& kernel, const std::filesystem::path& folder) {
  for (const tensorfiles::ManifestCase& c : tensorfiles::read_manifest(folder).entries) {
    KernelCall call;
    call.spec = Spec::parse(c.spec);
    const Family family = call.spec.family;
    call.in_place = c.in_place;
    call.sequence_length = c.sequence_length;
    call.id_offset = c.id_offset;
    call.first = c.first;
    call.rows = c.rows;
    call.key_first = c.key_first;
    call.keys = c.keys;
    for (const ArrayFile& file : c.inputs) {
      Buffer buffer = plain_buffer(family, file, true);
      tensorfiles::set_logical_bytes(buffer, tensorfiles::read_npy(folder / file.file).data);
      call.inputs.push_back(std::move(buffer));
    }
    if (c.ids) {
      const tensorfiles::NpyArray ids = tensorfiles::read_npy(folder / c.ids->file);
      call.axes = static_cast<int>(ids.header.shape.at(0));
      call.batch = ids.header.shape.at(1);
      call.seq = ids.header.shape.at(2);
      call.ids64 = ids.header.descr == "<i8";
      if (call.ids64) {
        call.ids64_data.resize(ids.data.size() / sizeof(std::int64_t));
        std::memcpy(call.ids64_data.data(), ids.data.data(), ids.data.size());
      } else {
        call.ids32_data.resize(ids.data.size() / sizeof(std::int32_t));
        std::memcpy(call.ids32_data.data(), ids.data.data(), ids.data.size());
      }
    }
    for (std::size_t o = 0; o < c.outputs.size(); ++o)
      call.outputs.push_back(c.in_place ? call.inputs.at(o) : plain_buffer(family, c.outputs[o], false));
    kernel.run(call);
    for (std::size_t o = 0; o < c.outputs.size(); ++o) {
      const std::vector<std::byte> bytes = tensorfiles::logical_bytes(call.outputs[o]);
      tensorfiles::write_npy(folder / c.outputs[o].file, c.outputs[o].descr, c.outputs[o].shape, bytes);
    }
  }
}

}  // namespace peconform::testing
