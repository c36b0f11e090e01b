// Backs the simulation's memory with transparent huge pages (2 MiB) instead of 4 KiB pages.
//
// A large fabric's per-port state is spread over tens of megabytes of heap, and every frame
// touches a few dozen cache lines on unrelated pages. With 4 KiB pages most of those touches
// also miss the TLB, and under a hypervisor each TLB miss walks two page tables. Results do not
// change, only speed (docs/performance.md).
#pragma once
#include <cstddef>

namespace sluice {

struct huge_page_report {
  std::size_t regions = 0;    // anonymous regions advised
  std::size_t bytes = 0;      // their size
  std::size_t collapsed = 0;  // bytes the kernel collapsed into huge pages at once
};

// Before elaboration: lets the heap grow in one large step (address space only; pages are
// backed when first touched) and keeps large blocks on the heap, so that what the run
// allocates later lies inside the region use_huge_pages() advises.
void reserve_heap_for_huge_pages();

// After elaboration: advises every private anonymous writable mapping of at least 2 MiB (the
// heap included) to use huge pages and asks the kernel to collapse what is already there.
// Where the kernel lacks transparent huge pages or MADV_COLLAPSE (Linux < 6.1) it does less, or
// nothing; it never fails a run.
huge_page_report use_huge_pages();

}  // namespace sluice
