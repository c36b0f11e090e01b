// `sluice regs DEVICE`: the map as a table, as JSON, and as the generated views, which are the
// committed ones; an unknown device or format is one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "models/regs/regmap.h"
#include "tests/support/harness.h"

using namespace sluice;

TEST(RegsCli, PrintsTheMapInEveryFormat) {
  const auto table = test::run_cli("regs switch");
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.output.find("PFC_XOFF (lockable)"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("param {dev}.port{port}.prio{cls}.ecn.kmin"), std::string::npos);
  const auto block = test::run_cli("regs nic_flows");
  EXPECT_NE(block.output.find("device flow.rate"), std::string::npos) << block.output;
  EXPECT_EQ(block.output.find("nic_globals"), std::string::npos);
  for (uint32_t d = 0; d < regs::device_count(); ++d) {
    const regs::device_desc& dev = *regs::devices()[d];
    const auto json = test::run_cli(std::string("regs ") + dev.name + " --format json");
    ASSERT_EQ(json.status, 0);
    const nlohmann::json j = nlohmann::json::parse(json.output);
    EXPECT_EQ(j["layout"], dev.layout);
    ASSERT_EQ(j["blocks"].size(), dev.block_count);
    for (uint32_t b = 0; b < dev.block_count; ++b)
      EXPECT_EQ(j["blocks"][b]["registers"].size(), dev.blocks[b]->register_count);
    const std::string root = SLUICE_SOURCE_DIR;
    EXPECT_EQ(test::run_cli(std::string("regs ") + dev.name + " --format c").output,
              test::slurp(root + "/regmaps/generated/sluice_regs_" + dev.name + ".h"));
    EXPECT_EQ(test::run_cli(std::string("regs ") + dev.name + " --format rdl").output,
              test::slurp(root + "/regmaps/generated/sluice_regs_" + dev.name + ".rdl"));
    EXPECT_EQ(test::run_cli(std::string("regs ") + dev.name + " --format md").output,
              test::slurp(root + "/docs/registers/" + dev.name + ".md"));
  }
  test::expect_cli_error("regs fridge", "'fridge' is no device kind or block (switch, switch_globals");
  test::expect_cli_error("regs nic --format xml", "--format: 'xml' is not one of table, json, c, md, rdl");
  test::expect_cli_error("regs nic --until 1ms", "--until: does not apply to 'regs'");
  test::expect_cli_error("params x.yaml --format json", "--format: applies to 'regs' only");
}
