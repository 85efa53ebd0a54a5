// The verifiers for outputs that must be bit-identical: T5 buckets and Shaw indices (expected
// once per distinct distance j - i), learned-table gathers, and the guards around every output.
#include <cmath>
#include <fmt/format.h>
#include <omp.h>

#include "harness/family_verifiers.hpp"
#include "harness/parallel_work.hpp"
#include "harness/typed_access.hpp"
#include "reference/relative_bias.hpp"

namespace peconform::harness {

ElementTally verify_indices(const KernelCall& call) {
  const Spec& spec = call.spec;
  const Buffer& out = call.outputs[0];
  // Every distance j - i of the call, from the lowest.
  const std::int64_t lowest = call.key_first - (call.first + call.rows - 1);
  const std::int64_t distances = call.rows + call.keys - 1;
  std::vector<T5Bucket> expected(static_cast<std::size_t>(distances));
  for (std::int64_t k = 0; k < distances; ++k)
    expected[static_cast<std::size_t>(k)] = spec.family == Family::t5 ? t5_bucket<FastReal>(spec, 0, lowest + k)
                                                                      : T5Bucket{shaw_index(spec, 0, lowest + k), false};
  std::vector<ElementTally> tallies(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel if (worth_a_team(call.rows * call.keys))
  {
    ElementTally& tally = tallies[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
    for (std::int64_t q = 0; q < call.rows; ++q)
      for (std::int64_t k = 0; k < call.keys; ++k) {
        const Point point = row_point(call, q, k);
        const T5Bucket& want = expected[static_cast<std::size_t>(point.c[1] - point.c[0] - lowest)];
        const std::int64_t flat = q * call.keys + k;
        const auto got = static_cast<std::int32_t>(out.bits(out.offset_of(0, 0, q, k)));
        if (want.boundary) ++tally.stats.boundary_elements;
        if (got == want.bucket) {
          tally.identical();
          continue;
        }
        tally.fail({0, flat}, [&] {
          const std::uint64_t bits = out.bits(out.offset_of(0, 0, q, k));
          const std::string_view held = sentinel_kind(out, bits);
          return ElementFailure{std::string(held.empty() ? "mismatch" : held), "index", flat, {0, q, k, 0},
                                format_point(spec.family, point), want.boundary ? "on a logarithmic bucket boundary" : "",
                                fmt::format("{}", want.bucket), element_text(call, out, bits, got), INFINITY,
                                INFINITY, "0"};
        });
      }
  }
  ElementTally total;
  for (const ElementTally& tally : tallies) total.merge(tally);
  return total;
}

ElementTally verify_gather(const KernelCall& call) {
  const Spec& spec = call.spec;
  const Buffer& table = call.inputs[0];
  const Buffer& out = call.outputs[0];
  ElementTally tally;
  for (std::int64_t b = 0; b < call.batch; ++b)
    for (std::int64_t s = 0; s < call.seq; ++s) {
      const std::int64_t id = call.id(0, b, s);
      for (std::int64_t e = 0; e < spec.d; ++e) {
        const std::int64_t at = out.offset_of(b, s, 0, e), from = table.offset_of(0, 0, id, e);
        const std::string_view held = sentinel_kind(out, out.bits(at));
        if (out.bits(at) == table.bits(from) || (held.empty() && std::isnan(out.value(at)) && std::isnan(table.value(from)))) {
          tally.identical();
          continue;
        }
        const std::int64_t flat = (b * call.seq + s) * spec.d + e;
        tally.fail({0, flat}, [&] {
          return ElementFailure{std::string(held.empty() ? "mismatch" : held), "out", flat, {b, s, 0, e},
                                fmt::format("{}", id), fmt::format("table row {}", id), hex_and_decimal(table.value(from)),
                                element_text(call, out, out.bits(at), out.value(at)), INFINITY, INFINITY, "0"};
        });
      }
    }
  return tally;
}

namespace {

// Calls written(i), in order, for each storage index i in [begin, end) that `logical` (null: none)
// leaves unmarked and whose element is not `own`: typed loads, one comparison per element,
// instead of Buffer::bits's copy of runtime length.
template <class Unit, class Written>
void find_written(const Buffer& out, std::int64_t begin, std::int64_t end, const unsigned char* logical, std::uint64_t own,
                  Written&& written) {
  const Unit* const data = reinterpret_cast<const Unit*>(out.bytes.data());
  const auto expected = static_cast<Unit>(own);
  for (std::int64_t i = begin; i < end; ++i)
    if (data[i] != expected && (logical == nullptr || logical[i] == 0)) written(i);
}

}  // namespace

ElementTally verify_guards(const KernelCall& call) {
  ElementTally tally;
  for (std::size_t o = 0; o < call.outputs.size(); ++o) {
    const Buffer& out = call.outputs[o];
    const std::int64_t logical_count = out.shape[0] * out.shape[1] * out.shape[2] * out.shape[3];
    // Each guard and padding element must still hold its own sentinel: one that holds another
    // buffer's (a kernel that copied past a row from its input) was written as surely as one
    // that holds a number.
    auto written = [&](std::int64_t i) {
      const bool guard = out.in_guard(i);
      const std::uint64_t own = guard ? out.sentinels.guard : out.sentinels.padding;
      // Guards and padding sit outside the logical elements; their keys follow them.
      tally.fail({o, logical_count + i}, [&] {
        const std::string where = i < out.origin ? fmt::format("{} elements before the tensor", out.origin - i)
                                  : guard        ? fmt::format("storage index {} (past the end)", i - out.origin)
                                                 : fmt::format("storage index {} (padding)", i - out.origin);
        return ElementFailure{"out-of-bounds", buffer_name(call, output_slot(o)), i - out.origin, {-1, -1, -1, -1}, where, "",
                              element_text(call, out.type, own, out.value(i)),
                              element_text(call, out.type, out.bits(i), out.value(i)), INFINITY, INFINITY, ""};
      });
    };
    const std::int64_t tail = out.size() - kGuardElements;
    // A dense layout has no padding inside: the guards are all there is to look at.
    const bool dense = out.size() == logical_count + 2 * kGuardElements;
    // Bytes, not std::vector<bool>: marking and scanning bits cost more than the rest of the check.
    std::vector<unsigned char> logical;
    if (!dense) {
      logical.assign(static_cast<std::size_t>(out.size()), 0);
      for (std::int64_t b = 0; b < out.shape[0]; ++b)
        for (std::int64_t s = 0; s < out.shape[1]; ++s)
          for (std::int64_t h = 0; h < out.shape[2]; ++h) {
            std::int64_t at = out.offset_of(b, s, h, 0);
            for (std::int64_t e = 0; e < out.shape[3]; ++e, at += out.stride[3]) logical[static_cast<std::size_t>(at)] = 1;
          }
    }
    auto scan = [&](auto unit) {
      using Unit = decltype(unit);
      find_written<Unit>(out, 0, out.origin, nullptr, out.sentinels.guard, written);
      if (!dense) find_written<Unit>(out, out.origin, tail, logical.data(), out.sentinels.padding, written);
      find_written<Unit>(out, tail, out.size(), nullptr, out.sentinels.guard, written);
    };
    switch (element_size(out.type)) {
      case 2: scan(std::uint16_t{}); break;
      case 4: scan(std::uint32_t{}); break;
      default: scan(std::uint64_t{}); break;
    }
  }
  return tally;
}

}  // namespace peconform::harness
