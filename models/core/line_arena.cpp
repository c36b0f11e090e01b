#include "models/core/line_arena.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace sluice {

namespace {
struct alignas(line_arena::line) line_bytes {
  unsigned char bytes[line_arena::line];
};
constexpr std::size_t chunk_lines = (std::size_t{1} << 20) / line_arena::line;  // 1 MiB

struct arena_state {
  std::vector<std::unique_ptr<line_bytes[]>> chunks;
  line_bytes* next = nullptr;  // the last chunk's first free line
  std::size_t left = 0;        // its free lines
  std::size_t live = 0;
};
// Never destroyed: an object still alive when static destructors run (a Python module's) can
// release into it.
arena_state& state() {
  static arena_state* s = new arena_state;
  return *s;
}
}  // namespace

void* line_arena::allocate(std::size_t bytes) {
  assert(bytes % line == 0);
  const std::size_t lines = bytes / line;
  arena_state& s = state();
  if (lines > s.left) {
    // A fresh chunk (the last one's rest, smaller than this object, stays unused).
    const std::size_t n = std::max(lines, chunk_lines);
    s.chunks.emplace_back(new line_bytes[n]);
    s.next = s.chunks.back().get();
    s.left = n;
  }
  void* p = s.next;
  s.next += lines;
  s.left -= lines;
  ++s.live;
  return p;
}

void line_arena::release() noexcept {
  arena_state& s = state();
  assert(s.live > 0);
  if (--s.live == 0) {
    s.chunks.clear();
    s.next = nullptr;
    s.left = 0;
  }
}

std::size_t line_arena::live() { return state().live; }

}  // namespace sluice
