// The huge-page advice: it covers the heap, and where the kernel offers transparent huge pages
// the memory it advises is backed by them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "platforms/huge_pages.h"

using namespace sluice;

namespace {
std::string read(const char* path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
// kB of anonymous memory backed by huge pages, from /proc/self/smaps_rollup (-1: unknown).
long anon_huge_kb() {
  std::istringstream in(read("/proc/self/smaps_rollup"));
  std::string key;
  long kb = 0;
  while (in >> key) {
    if (key == "AnonHugePages:") return in >> kb ? kb : -1;
    in.ignore(1 << 10, '\n');
  }
  return -1;
}
}  // namespace

TEST(HugePages, AdvisesTheHeapAndTheKernelBacksIt) {
  reserve_heap_for_huge_pages();
  std::vector<char> block(16 << 20, 1);  // on the heap, below the raised mmap threshold
  const huge_page_report r = use_huge_pages();
  EXPECT_LE(r.collapsed, r.bytes);
  const std::string mode = read("/sys/kernel/mm/transparent_hugepage/enabled");
  if (mode.empty() || mode.find("[never]") != std::string::npos)
    GTEST_SKIP() << "this kernel offers no transparent huge pages";
  EXPECT_GE(r.regions, 1u);
  EXPECT_GE(r.bytes, std::size_t{14} << 20);  // the 16 MiB block, in whole 2 MiB pages
  // Memory touched after the advice, in the reserved heap, comes as huge pages too.
  std::vector<char> later(32 << 20, 2);
  if (r.collapsed > 0) {
    EXPECT_GE(anon_huge_kb(), 16 << 10);
  }
  EXPECT_EQ(block[12345] + later[54321], 3);
}
