#include "models/core/line_arena.h"

#include <algorithm>
#include <cassert>
#include <utility>
#include <vector>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

namespace sluice {

namespace {
struct alignas(line_arena::line) line_bytes {
  unsigned char bytes[line_arena::line];
};
constexpr std::size_t chunk_lines = (std::size_t{1} << 20) / line_arena::line;  // 1 MiB

// ASan sees a chunk as one block: a line between objects, poisoned, lets it catch an object
// written past its end (tools/test.sh --sanitize), and a chunk's free lines are poisoned too.
void set_poisoned(void* p, std::size_t bytes, bool poisoned) {
#ifdef __SANITIZE_ADDRESS__
  if (poisoned)
    ASAN_POISON_MEMORY_REGION(p, bytes);
  else
    ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
  (void)p, (void)bytes, (void)poisoned;
#endif
}

struct arena_state {
  // Each chunk with its lines (a sanitizer build unpoisons them before they are freed).
  std::vector<std::pair<std::unique_ptr<line_bytes[]>, std::size_t>> chunks;
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
  const std::size_t lines = bytes / line + redzone_bytes / line;
  arena_state& s = state();
  if (lines > s.left) {
    // A fresh chunk (the last one's rest, smaller than this object, stays unused).
    const std::size_t n = std::max(lines, chunk_lines);
    s.chunks.emplace_back(new line_bytes[n], n);
    s.next = s.chunks.back().first.get();
    s.left = n;
    set_poisoned(s.next, n * line, true);
  }
  void* p = s.next;
  set_poisoned(p, bytes, false);
  s.next += lines;
  s.left -= lines;
  ++s.live;
  return p;
}

void line_arena::release() noexcept {
  arena_state& s = state();
  assert(s.live > 0);
  if (--s.live == 0) {
    for (auto& [chunk, lines] : s.chunks) set_poisoned(chunk.get(), lines * line, false);
    s.chunks.clear();
    s.next = nullptr;
    s.left = 0;
  }
}

std::size_t line_arena::live() { return state().live; }

}  // namespace sluice
