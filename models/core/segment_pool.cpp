#include "models/core/segment_pool.h"

#include <cassert>
#include <memory>
#include <mutex>
#include <vector>

namespace sluice {

namespace {
struct alignas(segment_pool::bytes) segment_bytes {
  unsigned char bytes[segment_pool::bytes];
};
constexpr std::size_t chunk_segments = 512;  // 256 KiB

struct pool_state {
  std::vector<std::unique_ptr<segment_bytes[]>> chunks;
  segment_bytes* next = nullptr;  // the last chunk's first segment never taken
  std::size_t left = 0;           // its segments never taken
  std::size_t users = 0;
  std::mutex m;  // a windowed run's lanes take fresh segments on their own threads
};
// Never destroyed: a queue still alive when static destructors run (a Python module's) can leave it.
pool_state& state() {
  static pool_state* s = new pool_state;
  return *s;
}
}  // namespace

void* segment_pool::take_fresh() {
  pool_state& s = state();
  std::lock_guard<std::mutex> hold(s.m);
  if (s.left == 0) {
    s.chunks.emplace_back(new segment_bytes[chunk_segments]);
    s.next = s.chunks.back().get();
    s.left = chunk_segments;
  }
  --s.left;
  return s.next++;
}

void segment_pool::join() {
  std::lock_guard<std::mutex> hold(state().m);
  ++state().users;
}

void segment_pool::leave() noexcept {
  pool_state& s = state();
  std::lock_guard<std::mutex> hold(s.m);
  assert(s.users > 0);
  if (--s.users > 0) return;
  s.chunks.clear();
  s.next = nullptr;
  s.left = 0;
  free_list = nullptr;
}

std::size_t segment_pool::held() {
  const pool_state& s = state();
  std::size_t n = s.chunks.size() * chunk_segments - s.left;
  for (void* p = free_list; p; p = *static_cast<void**>(p)) --n;
  return n;
}

}  // namespace sluice
