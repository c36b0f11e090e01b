// The CLI re-executes itself with glibc's heap on transparent huge pages (platforms/huge_pages.h,
// docs/performance.md#huge-pages): the tunable is added to the user's others, never set over the
// user's own choice for it. What the relaunched process's environment holds is seen by a child it
// starts: --report runs $SLUICE_PYTHON, here a script that writes GLIBC_TUNABLES to a file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/support/harness.h"

using namespace sluice;

namespace {

// GLIBC_TUNABLES as the CLI's run saw it, started in the environment `env` (a shell prefix).
std::string tunables_seen_by_a_run(const std::string& env) {
  const std::string seen = ::testing::TempDir() + "/tunables-" + std::to_string(getpid());
  const std::string python = test::write_temp("python.sh", "#!/bin/sh\necho \"$GLIBC_TUNABLES\" > '" + seen + "'\n");
  chmod(python.c_str(), 0755);
  std::remove(seen.c_str());
  const std::string out = ::testing::TempDir() + "/tunables-run-" + std::to_string(getpid());
  const auto r =
      test::run_cli_after("env -u GLIBC_TUNABLES SLUICE_PYTHON='" + python + "' " + env,
                          "run " + test::scenario_path("incast.yaml") + " --until 1us -q --report --out " + out);
  EXPECT_EQ(r.status, 0) << r.output;
  std::string text = test::slurp(seen);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace

TEST(HugePages, TheCliAsksGlibcForThemUnlessTheUserChoseAlready) {
  EXPECT_EQ(tunables_seen_by_a_run(""), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(tunables_seen_by_a_run("GLIBC_TUNABLES=glibc.malloc.hugetlb=0"), "glibc.malloc.hugetlb=0");
  EXPECT_EQ(tunables_seen_by_a_run("GLIBC_TUNABLES=glibc.malloc.check=0"),
            "glibc.malloc.check=0:glibc.malloc.hugetlb=1");
  // A longer name that only ends in the tunable's is another tunable.
  EXPECT_EQ(tunables_seen_by_a_run("GLIBC_TUNABLES=x.glibc.malloc.hugetlb=0"),
            "x.glibc.malloc.hugetlb=0:glibc.malloc.hugetlb=1");
}
