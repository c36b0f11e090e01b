#include "platforms/workload.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "platforms/scenario.h"

using namespace sluice;

namespace {
const char* websearch_table =
    "0 0\n10000 15\n20000 20\n30000 30\n50000 40\n80000 53\n200000 60\n1000000 70\n2000000 80\n"
    "5000000 90\n10000000 97\n30000000 100\n";

std::string two_hosts(const std::string& traffic) {
  return "platform: {kind: incast, senders: 2, link_rate: 40Gbps}\ntraffic: [" + traffic + "]\n";
}
}  // namespace

TEST(SizeCdf, MeanAndInterpolation) {
  size_cdf c = size_cdf::from_text(websearch_table, "t");
  // Sizes are uniform within each segment: sum of dp x midpoint over the table.
  EXPECT_DOUBLE_EQ(c.mean_bytes(), 1711250.0);
  EXPECT_EQ(c.sample(0.0), 1u);  // never a zero-byte flow
  EXPECT_EQ(c.sample(0.15), 10000u);
  EXPECT_EQ(c.sample(0.175), 15000u);
  EXPECT_EQ(c.sample(0.95), 8571429u);  // 5 MB + 5 MB x (0.95 - 0.90) / (0.97 - 0.90)
  EXPECT_LE(c.sample(0.999999), 30000000u);
}

TEST(SizeCdf, BadTablesAreNamed) {
  EXPECT_THROW(size_cdf::from_text("0 0\n10 50\n", "t"), config_error);         // does not reach 100 %
  EXPECT_THROW(size_cdf::from_text("0 0\n10 60\n5 100\n", "t"), config_error);  // sizes decrease
  EXPECT_THROW(size_cdf::from_text("0 0\nten 100\n", "t"), config_error);       // not a number
  EXPECT_THROW(size_cdf::from_text("0 0\n10 100 extra\n", "t"), config_error);  // trailing field
  try {
    size_cdf::from_file("/nonexistent.txt", "traffic[0].cdf");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("traffic[0].cdf"), std::string::npos);
  }
}

TEST(Workload, OffersTheRequestedLoadAsPoissonArrivals) {
  // fb-hadoop (mean 120 420.75 B) at half of 40 Gb/s for 500 ms from each of h0, h1 and r0:
  // 0.5 x 40e9 / 8 x 0.5 s = 1.25 GB per source, about 10 400 flows each.
  scenario s = load_scenario_text(
      two_hosts("{kind: workload, src: \"*\", dst: \"*\", cdf: fb-hadoop, load: 0.5, start: 1ms, stop: 501ms}"));
  ASSERT_TRUE(s.flows.empty());  // drawn only once the seed is known
  expand_workloads(s, 7);
  std::map<std::string, double> bytes;
  for (std::size_t i = 0; i < s.flows.size(); ++i) {
    const flow_spec& f = s.flows[i];
    EXPECT_NE(s.flow_ends[i].first, s.flow_ends[i].second);
    EXPECT_GE(f.start, sc_core::sc_time(1, sc_core::SC_MS));
    EXPECT_LT(f.start, sc_core::sc_time(501, sc_core::SC_MS));
    EXPECT_TRUE(f.from_workload);
    bytes[s.flow_ends[i].first] += static_cast<double>(f.size);
  }
  ASSERT_EQ(bytes.size(), 3u);
  for (auto& [src, b] : bytes) EXPECT_NEAR(b, 1.25e9, 0.15 * 1.25e9) << src;
  EXPECT_NEAR(static_cast<double>(s.flows.size()), 3 * 1.25e9 / 120420.75, 0.05 * 3 * 1.25e9 / 120420.75);
}

TEST(Workload, SameSeedSameFlowsOtherSeedOtherFlows) {
  auto draw = [](uint64_t seed) {
    scenario s =
        load_scenario_text(two_hosts("{kind: workload, src: \"h*\", dst: r0, cdf: websearch, load: 0.3, stop: 50ms}"));
    expand_workloads(s, seed);
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const flow_spec& f : s.flows) out.emplace_back(f.size, sc_core::sc_time(f.start).value());
    return out;
  };
  EXPECT_EQ(draw(1), draw(1));
  EXPECT_NE(draw(1), draw(2));
  EXPECT_FALSE(draw(1).empty());
}

TEST(Workload, BadSettingsAreNamed) {
  auto expect_error = [](const std::string& traffic, const std::string& fragment) {
    try {
      load_scenario_text(two_hosts(traffic));
      ADD_FAILURE() << traffic;
    } catch (const config_error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("{kind: workload, src: h0, dst: r0, cdf: websearch, load: 1.5, stop: 1ms}", "traffic[0].load");
  expect_error("{kind: workload, src: h0, dst: r0, cdf: websearch, load: 0, stop: 1ms}", "traffic[0].load");
  expect_error("{kind: workload, src: h0, dst: r0, cdf: nosuch.txt, load: 0.5, stop: 1ms}", "traffic[0].cdf");
  expect_error("{kind: workload, src: h0, dst: r0, cdf: websearch, load: 0.5, start: 2ms, stop: 1ms}",
               "traffic[0].stop");
  expect_error("{kind: workload, src: h0, dst: r0, cdf: websearch, load: 0.5}", "traffic[0].stop");
  expect_error("{kind: workload, src: h0, dst: r0, cdf: websearch, load: 0.5, stop: 1ms, size: 1KB}",
               "traffic[0].size");
}

TEST(SizeCdf, OnlyBoundedRegularFilesAreRead) {
  // /dev/zero used to be read until memory ran out, /dev/stdin blocked the run.
  auto expect_cdf_error = [](const std::string& path, const std::string& fragment) {
    try {
      size_cdf::from_file(path, "traffic[0].cdf");
      ADD_FAILURE() << path;
    } catch (const config_error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("traffic[0].cdf"), std::string::npos) << msg;
      EXPECT_NE(msg.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << msg;
    }
  };
  expect_cdf_error("/dev/zero", "not a regular file");
  expect_cdf_error("/dev/stdin", "not a regular file");
  expect_cdf_error("/tmp", "not a regular file");
  const std::string big = ::testing::TempDir() + "/cdf-big-" + std::to_string(getpid());
  {
    std::ofstream out(big);
    for (int i = 0; i < 200000; ++i) out << "0 0\n";  // 800 KB but 200 000 lines
  }
  expect_cdf_error(big, "more than 100000 lines");
  {
    std::ofstream out(big);
    out << std::string(size_cdf::max_file_bytes + 1, ' ');
  }
  expect_cdf_error(big, "larger than 1048576 bytes");
  // Numbers in a CDF are decimal, like everywhere else.
  EXPECT_THROW(size_cdf::from_text("0 0\n0x10 100\n", "t"), config_error);
  EXPECT_THROW(size_cdf::from_text("0 0\ninf 100\n", "t"), config_error);
}

TEST(Workload, DeviceAsCdfIsAnErrorAtLoadTime) {
  for (const char* dev : {"/dev/zero", "/dev/stdin"}) {
    try {
      load_scenario_text(
          two_hosts("{kind: workload, src: h0, dst: r0, cdf: " + std::string(dev) + ", load: 0.3, stop: 1ms}"));
      ADD_FAILURE() << dev;
    } catch (const config_error& e) {
      EXPECT_NE(std::string(e.what()).find("traffic[0].cdf: '" + std::string(dev) + "' is not a regular file"),
                std::string::npos)
          << e.what();
    }
  }
}
