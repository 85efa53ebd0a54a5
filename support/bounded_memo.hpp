#pragma once
// A thread-safe memory of computed values, forgotten all at once past a fixed number of entries
// so that a long campaign's memory stays bounded. It holds no mathematics: the reference tiers
// and our CPU kernels each remember their own frequency tables with it, computed their own way.
#include <cstddef>
#include <map>
#include <mutex>

namespace peconform {

template <class Key, class Value> class BoundedMemo {
 public:
  explicit BoundedMemo(std::size_t capacity) : capacity_(capacity) {}

  // The value remembered for `key`, else compute() remembered. compute runs outside the lock, so
  // two threads may both compute a new key; both get the same value.
  template <class Compute> Value get(const Key& key, Compute&& compute) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto found = values_.find(key); found != values_.end()) return found->second;
    }
    Value value = compute();
    const std::lock_guard lock(mutex_);
    if (values_.size() >= capacity_) values_.clear();
    values_.emplace(key, value);
    return value;
  }

 private:
  std::size_t capacity_;
  std::mutex mutex_;
  std::map<Key, Value> values_;
};

}  // namespace peconform
