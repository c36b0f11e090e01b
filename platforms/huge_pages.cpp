#include "platforms/huge_pages.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1
#endif

namespace sluice {

void reserve_heap_for_huge_pages() {
  // The heap's next growth reserves 512 MiB of address space: a fabric's run-time allocations
  // (payload pool, queue rings, timer nodes) then land in the advised region instead of in
  // growth made after it, which the kernel would map without the advice. Blocks up to 64 MiB
  // stay on the heap rather than in mappings of their own, and the heap is not trimmed.
  mallopt(M_TOP_PAD, 512 << 20);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

huge_page_report use_huge_pages() {
  huge_page_report r;
  constexpr uintptr_t huge = uintptr_t{2} << 20;
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return r;
  // Read the whole map first: advising splits regions, which changes the file being read.
  std::vector<std::pair<uintptr_t, uintptr_t>> regions;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    uintptr_t lo = 0, hi = 0;
    char perms[8] = {};
    unsigned long long offset = 0;
    int path_at = 0;
    if (std::sscanf(line, "%lx-%lx %7s %llx %*s %*s %n", &lo, &hi, perms, &offset, &path_at) < 3) continue;
    const char* path = line + path_at;
    const bool anonymous = path_at == 0 || *path == '\n' || *path == '\0' || std::strncmp(path, "[heap]", 6) == 0;
    if (!anonymous || perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p') continue;
    // Only whole huge pages inside the region.
    const uintptr_t start = (lo + huge - 1) & ~(huge - 1), end = hi & ~(huge - 1);
    if (end > start) regions.emplace_back(start, end);
  }
  std::fclose(maps);
  for (auto [start, end] : regions) {
    void* at = reinterpret_cast<void*>(start);
    const std::size_t len = end - start;
    if (madvise(at, len, MADV_HUGEPAGE) != 0) continue;
    ++r.regions;
    r.bytes += len;
    if (madvise(at, len, MADV_COLLAPSE) == 0) r.collapsed += len;
  }
  return r;
}

}  // namespace sluice
