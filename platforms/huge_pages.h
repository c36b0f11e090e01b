// The CLI's heap on transparent huge pages (docs/performance.md, "Huge pages").
#pragma once

namespace sluice {

// Re-executes this program with glibc's malloc asked to back its heap with transparent huge
// pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), unless the environment already names that
// tunable (any value: the user's choice, 0 turns it off) or the process runs under Valgrind
// (its tools would lose the program at the exec). glibc reads its tunables only at start-up,
// hence the exec. Returns only if there is nothing to do or the exec failed.
void relaunch_with_huge_pages(char* argv[]);

}  // namespace sluice
