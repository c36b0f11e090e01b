// Memory grows linearly with the fabric (issue 23): nothing fails a timed test if a structure
// grows with hosts squared again (forwarding tables, flow maps and the counter list once did:
// 1.59 GB at 10 240 hosts, docs/scale-history.md), so this test measures it. It runs the sluice binary
// on leaf-spines of 256, 1 024 and 4 096 hosts (32 per leaf, 32 spines: ports, links and routes
// per host the same at every size) for 20 us of a permutation, reads each child's peak RSS
// (wait4), and compares the memory each added host costs between 256 and 1 024 hosts with that
// between 1 024 and 4 096. Peak RSS is deterministic here to about 0.1 %; the test takes ~2 s.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "tests/support/harness.h"

namespace {
// The sluice binary's peak resident memory (KiB) running a leaf-spine of `leaves` x 32 hosts.
long peak_rss_kib(int leaves) {
  const std::string scenario =
      sluice::test::write_temp("scale-memory-" + std::to_string(leaves) + ".yaml",
                               "name: scale-memory\n"
                               "platform: {kind: leaf-spine, leaves: " +
                                   std::to_string(leaves) +
                                   ", spines: 32, hosts: 32, link_rate: 40Gbps, link_delay: 1us}\n"
                                   "run: {until: 20us, seed: 1}\n"
                                   "traffic:\n"
                                   "  - {kind: permutation, hosts: \"h*\", rate: 20Gbps}\n");
  const pid_t child = fork();
  if (child == 0) {
    execl(SLUICE_BINARY, SLUICE_BINARY, "run", scenario.c_str(), "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  EXPECT_EQ(wait4(child, &status, 0, &usage), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << leaves << " leaves: status " << status;
  return usage.ru_maxrss;  // KiB on Linux
}
}  // namespace

// Measured (November 2026): 36.6, 101.1 and 362.0 MiB peak; 86.1 KiB per added host from 256 to
// 1 024 hosts and 87.0 from 1 024 to 4 096 (ratio 1.010). A table of 2.4 bytes per pair of hosts
// would push the ratio past 1.10 (3 bytes per pair planted in routing as a check: 1.13, fails;
// the three quadratic structures removed in issue 23 came to about 7 bytes per pair: ~1.28);
// 160 KiB per host would be twice today's.
TEST(ScaleMemory, EachHostCostsTheSameMemoryFrom256To4096Hosts) {
#ifdef __SANITIZE_ADDRESS__
  // AddressSanitizer's redzones, quarantine and shadow memory are part of the RSS measured here
  // (1.11 under it against 1.01 without): the bound is about our memory, not its.
  GTEST_SKIP() << "the sanitizer build measures AddressSanitizer's own memory";
#endif
  const double small = peak_rss_kib(8), mid = peak_rss_kib(32), large = peak_rss_kib(128);
  const double per_host_low = (mid - small) / (1024 - 256), per_host_high = (large - mid) / (4096 - 1024);
  RecordProperty("kib_per_host_256_to_1024", std::to_string(per_host_low));
  RecordProperty("kib_per_host_1024_to_4096", std::to_string(per_host_high));
  EXPECT_LT(per_host_high / per_host_low, 1.10) << per_host_low << " then " << per_host_high << " KiB per host";
  EXPECT_LT(per_host_high, 160.0) << "KiB per host from 1 024 to 4 096 hosts";
}

// The switch queues' table of flow ends (queued_frame.h) belongs to the simulation: made for its
// flows when it is built, read by every queue, and given back when it ends, so a process that runs
// several simulations keeps no table of an earlier run's flows (it was process-wide and grew to
// the largest flow id ever seen).
TEST(ScaleMemory, TheQueuesFlowEndsAreTheSimulationsAndGoWithIt) {
  sluice::run_options o;
  o.until = sc_core::sc_time(200, sc_core::SC_US);
  std::size_t learnt = 0;
  {
    sluice::simulation sim(sluice::load_scenario_file(sluice::test::scenario_path("incast.yaml")), o);
    const std::size_t flows = sim.fabric_model().flows.size();
    ASSERT_GT(flows, 0u);
    ASSERT_NE(sluice::queued_flow_ends::table, nullptr);
    EXPECT_GE(sluice::queued_flow_ends::count, flows);
    sim.run();
    for (std::size_t f = 0; f < flows; ++f)
      learnt += sluice::queued_flow_ends::table[f] != sluice::queued_flow_ends::unknown;
  }
  EXPECT_GT(learnt, 0u) << "the incast's switch queued its flows' frames as descriptors";
  EXPECT_EQ(sluice::queued_flow_ends::table, nullptr);
  EXPECT_EQ(sluice::queued_flow_ends::count, 0u);
}
