#include "models/core/segment_pool.h"

#include <cassert>
#include <memory>
#include <vector>

namespace sluice {

namespace {
struct alignas(segment_pool::bytes) segment_bytes {
  unsigned char bytes[segment_pool::bytes];
};
constexpr std::size_t chunk_segments = 256;  // 256 KiB

struct pool_state {
  std::vector<std::unique_ptr<segment_bytes[]>> chunks;
  void* free = nullptr;           // the last segment given back; its first bytes link to the one before
  segment_bytes* next = nullptr;  // the last chunk's first segment never taken
  std::size_t left = 0;           // its segments never taken
  std::size_t live = 0;
};
// Never destroyed: a queue still alive when static destructors run (a Python module's) can give
// its segments back to it.
pool_state& state() {
  static pool_state* s = new pool_state;
  return *s;
}
}  // namespace

void* segment_pool::take() {
  pool_state& s = state();
  ++s.live;
  if (void* p = s.free) {
    s.free = *static_cast<void**>(p);
    return p;
  }
  if (s.left == 0) {
    s.chunks.emplace_back(new segment_bytes[chunk_segments]);
    s.next = s.chunks.back().get();
    s.left = chunk_segments;
  }
  --s.left;
  return s.next++;
}

void segment_pool::give(void* segment) noexcept {
  pool_state& s = state();
  assert(s.live > 0);
  if (--s.live == 0) {  // the last one: every chunk goes
    s.chunks.clear();
    s.free = nullptr;
    s.next = nullptr;
    s.left = 0;
    return;
  }
  *static_cast<void**>(segment) = s.free;
  s.free = segment;
}

std::size_t segment_pool::live() { return state().live; }

}  // namespace sluice
