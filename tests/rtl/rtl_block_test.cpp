// The Verilated egress scheduler block against its C++ fixed-point reference, and the reference
// against the C++ strict-dwrr policy: random direct vectors, corner cases, the mutant.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "models/rtl/sched_block.h"
#include "models/switch/egress_scheduler.h"
#include "tests/rtl/sched_vectors.h"

using namespace sluice;

namespace {
// Calls per configuration before the next one is drawn (the state carries over).
constexpr int per_config = 1000;

// Runs `n` vectors through the block and the reference; the first difference, or "".
std::string first_difference(sched_block& block, uint64_t n, uint64_t seed, uint64_t* cycles = nullptr) {
  test::sched_vectors v(seed);
  egress_sched_reference ref;
  for (uint64_t i = 0; i < n; ++i) {
    if (i % per_config == 0) {
      const sched_block_config c = v.config();
      block.configure(c);
      ref.configure(c);
    }
    const sched_request r = v.request();
    const sched_answer a = block.call(r, i * 1000), b = ref.decide(r);
    if (cycles) *cycles += a.cycles;
    if (a != b) {
      std::ostringstream s;
      s << "vector " << i << ": eligible 0x" << std::hex << r.eligible << std::dec << ": rtl " << a.queue << "/"
        << a.cycles << ", reference " << b.queue << "/" << b.cycles;
      return s.str();
    }
  }
  return "";
}

uint64_t vectors_from_env(uint64_t fallback) {
  const char* n = std::getenv("SLUICE_RTL_VECTORS");
  return n ? std::strtoull(n, nullptr, 10) : fallback;
}
}  // namespace

TEST(RtlEgressSched, RandomVectorsAgreeWithTheReference) {
  // 10^5 here; `cmake --build build --target rtl-vectors` runs 10^6 (SLUICE_RTL_VECTORS).
  auto block = make_verilated_egress_sched(sched_rtl_build::fast);
  uint64_t cycles = 0;
  const uint64_t n = vectors_from_env(100000);
  EXPECT_EQ(first_difference(*block, n, 1, &cycles), "");
  EXPECT_GT(cycles, n);  // some decisions took several rounds
  std::cout << n << " vectors, " << cycles << " cycles\n";
}

TEST(RtlEgressSched, TheTracedBuildIsTheSameBlock) {
  auto block = make_verilated_egress_sched(sched_rtl_build::traced);
  EXPECT_EQ(first_difference(*block, 20000, 2), "");
}

TEST(RtlEgressSched, CornerCases) {
  auto block = make_verilated_egress_sched(sched_rtl_build::fast);
  egress_sched_reference ref;
  sched_block_config c;
  for (auto& w : c.weight) w = 1;
  c.quantum = 64;
  block->configure(c);
  ref.configure(c);
  auto both = [&](const sched_request& r) {
    const sched_answer a = block->call(r, 0), b = ref.decide(r);
    EXPECT_EQ(a.queue, b.queue);
    EXPECT_EQ(a.cycles, b.cycles);
    return a;
  };
  sched_request none;
  EXPECT_EQ(both(none).queue, -1);  // none eligible: declined after one cycle
  EXPECT_EQ(both(none).cycles, 1u);
  sched_request big;
  big.eligible = 1u << 4;
  big.head[4] = 65535;  // 1024 grants of 64 bytes
  const sched_answer a = both(big);
  EXPECT_EQ(a.queue, 4);
  EXPECT_EQ(a.cycles, 1024u);
  EXPECT_LE(a.cycles, sched_max_cycles);
  // Weight 0 alone can never be served: declined, not a hang.
  c.weight[4] = 0;
  block->configure(c);
  ref.configure(c);
  EXPECT_EQ(both(big).queue, -1);
  // Strict first, the highest: one cycle, no state charged.
  c.strict_mask = 1u << 2 | 1u << 9;
  block->configure(c);
  ref.configure(c);
  sched_request all;
  all.eligible = 0xffff;
  for (auto& h : all.head) h = 1500;
  EXPECT_EQ(both(all).queue, 9);
}

TEST(RtlEgressSched, ReferenceAnswersAsTheCppStrictDwrr) {
  // With weights of at least 1 the fixed-point reference is the C++ policy, choice for choice.
  test::sched_vectors v(3, false);
  for (int k = 0; k < 20; ++k) {
    const sched_block_config bc = v.config();
    scheduler_config c;
    for (int q = 0; q < max_classes; ++q) {
      c.strict[q] = bc.strict_mask >> q & 1;
      c.weight[q] = bc.weight[q];
    }
    c.quantum = bc.quantum;
    egress_scheduler cpp(c);
    egress_sched_reference ref;
    ref.configure(bc);
    for (int i = 0; i < 5000; ++i) {
      const sched_request r = v.request();
      ASSERT_EQ(ref.decide(r).queue, cpp.select(r.head, r.eligible)) << "config " << k << " vector " << i;
    }
  }
}

TEST(RtlEgressSched, TheMutantIsCaught) {
  // One wrong bit in the DWRR deficit update: the vectors find it.
  auto block = make_verilated_egress_sched(sched_rtl_build::mutant);
  const std::string diff = first_difference(*block, 100000, 1);
  EXPECT_NE(diff, "");
  std::cout << "mutant: " << diff << '\n';
}

TEST(RtlEgressSched, WaveformWindowIsAValidVcdOfAbout100Cycles) {
  auto block = make_verilated_egress_sched(sched_rtl_build::traced);
  ASSERT_TRUE(block->trace_window(100, 1000));
  EXPECT_EQ(first_difference(*block, 500, 4), "");
  const std::string path = ::testing::TempDir() + "/window-" + std::to_string(getpid()) + ".vcd";
  ASSERT_TRUE(block->dump_window(path));
  std::ifstream in(path);
  std::string line, text;
  int times = 0;
  uint64_t first = 0, last = 0;
  while (std::getline(in, line)) {
    text += line + '\n';
    if (!line.empty() && line[0] == '#') {
      const uint64_t t = std::stoull(line.substr(1));
      if (times++ == 0) first = t;
      last = t;
    }
  }
  EXPECT_NE(text.find("$timescale 1ps $end"), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(text.find("$enddefinitions"), std::string::npos);
  // Rising and falling edges: between 100 and 150 cycles, one 1 ns period each.
  EXPECT_GE(times, 200);
  EXPECT_LE(times, 300);
  EXPECT_GE(last - first, 99 * 1000u);
}

// The per-call cost of each path on the same vectors (opt-in: tools/rtl_bench.sh runs it).
TEST(RtlEgressSched, DISABLED_PerCallCost) {
  const int n = std::getenv("SLUICE_RTL_CALLS") ? std::atoi(std::getenv("SLUICE_RTL_CALLS")) : 1000000;
  test::sched_vectors v(5, false);
  const sched_block_config bc = v.config();
  std::vector<sched_request> requests;
  for (int i = 0; i < 4096; ++i) requests.push_back(v.request());
  scheduler_config c;
  for (int q = 0; q < max_classes; ++q) {
    c.strict[q] = bc.strict_mask >> q & 1;
    c.weight[q] = bc.weight[q];
  }
  c.quantum = bc.quantum;
  auto time_ns = [&](auto&& call) {
    const auto start = std::chrono::steady_clock::now();
    uint64_t sink = 0;
    for (int i = 0; i < n; ++i) sink += static_cast<uint64_t>(call(requests[i & 4095]) + 1);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GT(sink, 0u);
    return ns / n;
  };
  egress_scheduler cpp(c);
  egress_sched_reference ref;
  ref.configure(bc);
  uint64_t cycles = 0;
  for (sched_rtl_build build : {sched_rtl_build::fast, sched_rtl_build::traced}) {
    auto block = make_verilated_egress_sched(build);
    block->configure(bc);
    const double rtl_ns = time_ns([&](const sched_request& r) {
      const sched_answer a = block->call(r, 0);
      cycles += a.cycles;
      return a.queue;
    });
    std::cout << (build == sched_rtl_build::fast ? "rtl (fast build)" : "rtl (traced build, not tracing)") << ": "
              << rtl_ns << " ns per call\n";
  }
  std::cout << "cycles per call: " << static_cast<double>(cycles) / (2 * n) << '\n';
  std::cout << "C++ strict-dwrr: " << time_ns([&](const sched_request& r) { return cpp.select(r.head, r.eligible); })
            << " ns per call\n";
  std::cout << "C++ fixed-point reference: " << time_ns([&](const sched_request& r) { return ref.decide(r).queue; })
            << " ns per call\n";
}
