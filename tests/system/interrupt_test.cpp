// Interrupts from status registers to firmware events (docs/cosimulation.md#interrupts): the
// test firmware tests/firmware/interrupts.c enables INT_STATUS flags at init and, on each IRQ,
// cuts its flow's rate register (a rate change at the handler's time) and clears the cause.
#include <sstream>

#include "models/core/probe.h"
#include "tests/support/harness.h"

namespace sluice {
namespace {

// dumbbell-dcqcn until 3 ms, h0 running the interrupt firmware with `sets`: h0's CNP arrival
// times, its rate changes (time), the firmware's counters and INT_STATUS at the end.
struct irq_run {
  std::vector<uint64_t> cnps, changes;
  double irqs = 0, causes = 0;
  uint32_t status = 0;
};

irq_run run_with_interrupts(std::vector<std::pair<std::string, std::string>> sets) {
  run_options o;
  o.sets = {{"h0.firmware", std::string(SLUICE_TEST_FIRMWARE_DIR) + "/libfw_interrupts.so"},
            {"h0.regs.irq_latency", "100"}};  // cycles of 1 ns
  for (auto& s : sets) o.sets.push_back(s);
  o.until = parse_time("3ms", "until");
  simulation sim(load_scenario_file(test::scenario_path("dumbbell-dcqcn.yaml")), o);
  irq_run r;
  probe_registry::instance().subscribe("h0.feedback_received",
                                       [&](const probe_point&, const probe_event& e) { r.cnps.push_back(e.time_ps); });
  probe_registry::instance().subscribe(
      "h0.rate_change", [&](const probe_point&, const probe_event& e) { r.changes.push_back(e.time_ps); });
  sim.run();
  const nlohmann::json s = sim.summary();
  r.irqs = s["counters"].value("h0.firmware.irqs", 0.0);
  r.causes = s["counters"].value("h0.firmware.causes", 0.0);
  regs::register_bank& bank = sim.fabric_model().nics[0]->registers.bank();
  bank.read(bank.address_of("INT_STATUS"), r.status, true);
  return r;
}

std::string encode(const irq_run& r) {
  std::ostringstream out;
  out << r.irqs << ' ' << r.causes << ' ' << r.status << ' ' << r.cnps.size() << ' ' << r.changes.size();
  return out.str();
}

}  // namespace

// Each CNP sets INT_STATUS.CNP; enabled, it raises the interrupt, and the handler runs exactly
// regs.irq_latency (100 cycles of 1 ns) after the CNP arrived; cleared by the handler, the
// next CNP raises the next one.
TEST(Interrupts, ACnpRaisesTheFirmwaresIrqTheLatencyLaterAndEachClearedFlagRaisesAgain) {
  const irq_run r = run_with_interrupts({});
  ASSERT_GT(r.cnps.size(), 10u);
  ASSERT_EQ(r.changes.size(), r.cnps.size());  // one interrupt per CNP: the handler cleared each
  for (std::size_t i = 0; i < r.cnps.size(); ++i) EXPECT_EQ(r.changes[i], r.cnps[i] + 100'000) << "interrupt " << i;
  EXPECT_EQ(r.irqs, static_cast<double>(r.cnps.size()));
  EXPECT_EQ(r.causes, r.irqs);  // cause: the CNP bit, 1
  EXPECT_EQ(r.status, 0u);      // the last one cleared too
}

// A flag that is not enabled sets, but raises nothing.
TEST(Interrupts, AMaskedFlagSetsButRaisesNothing) {
  const irq_run r = run_with_interrupts({{"h0.firmware.enable", "2"}});  // CNM only: DCQCN sends none
  EXPECT_GT(r.cnps.size(), 10u);
  EXPECT_EQ(r.irqs, 0.0);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(r.status & 1u, 1u);  // INT_STATUS.CNP is set all the same
}

// Edge-triggered: a flag the handler leaves set keeps the line raised, so later CNPs raise no
// further interrupt; write 1 to clear is what re-arms it.
TEST(Interrupts, AFlagLeftSetRaisesOnceAndWriteOneToClearRearmsIt) {
  const std::string cleared = test::in_child([] { return encode(run_with_interrupts({})); });
  const irq_run kept = run_with_interrupts({{"h0.firmware.clear", "0"}});
  EXPECT_EQ(kept.irqs, 1.0);
  EXPECT_EQ(kept.changes.size(), 1u);
  EXPECT_EQ(kept.status & 1u, 1u);
  std::istringstream in(cleared);
  double irqs = 0;
  in >> irqs;
  EXPECT_GT(irqs, 10.0) << cleared;
}

// A device event serves no flow: a handler answering it with a rate stops the run with one line
// saying where and when.
TEST(Interrupts, ARateAnsweredToAnIrqIsAOneLineError) {
  test::expect_cli_error("run " + test::scenario_path("dumbbell-dcqcn.yaml") + " --until 2ms --set h0.firmware=" +
                             SLUICE_TEST_FIRMWARE_DIR + "/libfw_interrupts.so --set h0.firmware.misuse=1",
                         "h0: firmware 'interrupts' IRQ event at 1.0486532ms: set a rate in a device event, which "
                         "serves no flow (write a flow's RATE register instead)");
}

}  // namespace sluice
