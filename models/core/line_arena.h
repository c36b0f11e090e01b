// Whole-run model objects aligned to a cache line, made in large chunks of whole lines.
//
// A fabric's switch ports, NICs and links (line-aligned: their MACs, link directions and egress
// ports are alignas(64), a hop's fields on lines of their own, docs/performance.md) and a switch
// port's per-class queue states live from elaboration to the end. Made one by one by aligned new, each cost glibc's
// memalign a header and ≈ 18 bytes past its end, and an array of them new[]'s count in front (a whole line, for a
// line-aligned element): 5 MiB of the k = 34 fat tree's peak, for its 137 564 such blocks
// (docs/scale-history.md, fifteenth round). The arena hands out whole lines from 1 MiB chunks. An object is
// destroyed as before (delete runs its destructor); its lines are not reused: the chunks are
// freed together when the last object made in them is released (a fabric's teardown; tests and
// the Python module build many). Models are made and destroyed on the simulation's thread.
#pragma once
#include <cassert>
#include <cstddef>
#include <memory>
#include <new>

namespace sluice {

class line_arena {
 public:
  static constexpr std::size_t line = 64;
  // After each object, in a sanitizer build only: a poisoned line (line_arena.cpp).
#ifdef __SANITIZE_ADDRESS__
  static constexpr std::size_t redzone_bytes = line;
#else
  static constexpr std::size_t redzone_bytes = 0;
#endif
  // `bytes` (a whole number of lines) at a line-aligned address: one object more.
  static void* allocate(std::size_t bytes);
  // One object fewer; with none left, every chunk is freed.
  static void release() noexcept;
  // Objects made and not yet released (for tests).
  static std::size_t live();
};

// Derive a line-aligned class from it: its objects made by new come from the arena. (A class not
// aligned to a line finds no operator new(size_t) here and does not compile.)
struct in_line_arena {
  static void* operator new(std::size_t bytes, std::align_val_t alignment) {
    assert(static_cast<std::size_t>(alignment) == line_arena::line);
    return line_arena::allocate(bytes);
  }
  static void operator delete(void*, std::align_val_t) noexcept { line_arena::release(); }
};

// n value-initialised T's (line-aligned) one after another in the arena, without new[]'s count
// in front of them: the owner, which knows n, destroys them with destroy_line_array.
template <typename T>
T* make_line_array(std::size_t n) {
  static_assert(alignof(T) == line_arena::line);
  T* p = static_cast<T*>(line_arena::allocate(n * sizeof(T)));
  try {
    std::uninitialized_value_construct_n(p, n);
  } catch (...) {
    line_arena::release();
    throw;
  }
  return p;
}
template <typename T>
void destroy_line_array(T* p, std::size_t n) noexcept {
  std::destroy_n(p, n);
  line_arena::release();
}

}  // namespace sluice
