// A run-time sized array of objects that can be neither copied nor moved (parameters, which the
// registry knows by address), built in place in one allocation. A port's per-class parameters
// live in one of these rather than behind a pointer each: a 10 000-host fabric has a million of
// them, and a separate allocation per object costs its header, its pointer and a cache line.
#pragma once
#include <cstddef>
#include <memory>
#include <new>

namespace sluice {

template <typename T>
class fixed_array {
 public:
  fixed_array() = default;
  // build(place, i) constructs element i at `place` (a placement new), in index order.
  template <class Build>
  fixed_array(std::size_t n, Build build)
      : storage_(static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{alignof(T)}))) {
    try {
      for (; size_ < n; ++size_) build(static_cast<void*>(storage_.get() + size_), size_);
    } catch (...) {
      destroy();  // those already built (a parameter leaves the registry)
      throw;
    }
  }
  fixed_array(const fixed_array&) = delete;
  fixed_array& operator=(const fixed_array&) = delete;
  fixed_array(fixed_array&&) noexcept = default;
  fixed_array& operator=(fixed_array&& other) noexcept {
    destroy();
    storage_ = std::move(other.storage_);
    size_ = other.size_;
    other.size_ = 0;
    return *this;
  }
  ~fixed_array() { destroy(); }

  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return storage_.get()[i]; }
  const T& operator[](std::size_t i) const { return storage_.get()[i]; }
  T* begin() { return storage_.get(); }
  T* end() { return storage_.get() + size_; }
  const T* begin() const { return storage_.get(); }
  const T* end() const { return storage_.get() + size_; }

 private:
  struct release {
    void operator()(T* p) const { ::operator delete (p, std::align_val_t{alignof(T)}); }
  };
  void destroy() {
    // Last built first, as an array's elements are destroyed.
    while (size_ > 0) storage_.get()[--size_].~T();
  }
  std::unique_ptr<T, release> storage_;
  std::size_t size_ = 0;
};

}  // namespace sluice
