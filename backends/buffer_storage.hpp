#pragma once
// The storage of a call's buffers (Buffer::bytes): std::allocator, except that elements are
// default-initialised, so resize leaves new bytes as they come instead of zeroing them. For the
// campaign's large calls drawing was as slow as verifying, and half of it went to that zero fill
// and to the page faults behind it, taken on one thread before the drawing team ever ran; now
// the team's own first writes fault the pages in. Whoever resizes must write every byte
// (make_buffer writes sentinels or drawn values into all of them, the wire reads all of them);
// resize(n, std::byte{}) still zeroes.
//
// Transparent huge pages (madvise) were tried as well: drawing the 16.8 M-element benchmark case
// took 0.025 s instead of 0.045 s, except when the kernel had to compact memory first, 0.18 s,
// one run in five here; the stall is not worth the gain.
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace peconform {

template <class T> class BufferAllocator : public std::allocator<T> {
 public:
  template <class U> struct rebind {
    using other = BufferAllocator<U>;
  };
  BufferAllocator() = default;
  template <class U> BufferAllocator(const BufferAllocator<U>&) noexcept {}

  template <class U> void construct(U* at) noexcept { ::new (static_cast<void*>(at)) U; }
  template <class U, class... Args> void construct(U* at, Args&&... args) {
    ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
  }
};

using BufferBytes = std::vector<std::byte, BufferAllocator<std::byte>>;

}  // namespace peconform
