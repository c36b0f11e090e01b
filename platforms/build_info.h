// The version and git commit this binary was built from (written at build time by
// cmake/build_info.cmake), for the provenance of every run (summary.json).
#pragma once

namespace sluice {

struct build_info {
  const char* version;     // the project's version (CMakeLists.txt)
  const char* git_commit;  // the checkout's HEAD at build time, "unknown" outside a git checkout
  bool git_dirty;          // tracked files differed from HEAD at build time
};

const build_info& this_build();

}  // namespace sluice
