// Policies chosen by name from the scenario: the parameter picks the policy per port, per class
// or per switch, and the choice shows in what the fabric does.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>

#include "models/cc/scheme.h"
#include "models/core/stats.h"
#include "tests/support/harness.h"

using namespace sluice;

namespace {
// The switch port that sent the most data frames, and its frames out on classes 3 and 5.
std::pair<uint64_t, uint64_t> bottleneck_frames(simulation& sim) {
  const switch_model& sw = *sim.fabric_model().switches[0];
  const switch_port* busiest = nullptr;
  uint64_t most = 0;
  for (const auto& p : sw.ports) {
    uint64_t n = p->queue(3).frames_out + p->queue(5).frames_out;
    if (n > most) most = n, busiest = p.get();
  }
  return {busiest->queue(3).frames_out, busiest->queue(5).frames_out};
}

double counter(const nlohmann::json& s, const std::string& name) {
  return s["counters"].contains(name) ? s["counters"][name].get<double>() : 0.0;
}

// a -> s0, then two equal-cost paths s0 -> s1 | s2 -> s3 -> b; eight flows a -> b.
std::string two_paths() {
  std::string traffic;
  for (int i = 0; i < 8; ++i) traffic += std::string(i ? ", " : "") + "{kind: finite, src: a, dst: b, size: 20KB}";
  return "platform:\n  kind: custom\n  switches: [s0, s1, s2, s3]\n  nics: [a, b]\n"
         "  links: [{a: a, b: s0}, {a: s0, b: s1}, {a: s0, b: s2}, {a: s1, b: s3}, {a: s2, b: s3}, {a: s3, b: b}]\n"
         "traffic: [" +
         traffic + "]\n";
}
}  // namespace

const std::vector<std::pair<std::string, std::string>> strict5 = {{"sw0.port*.prio5.sched", "strict"}};

TEST(Policies, StrictDwrrByDefaultServesTheStrictClassFirst) {
  // Classes 3 and 5 compete for r0's port; class 5 is strict under strict-dwrr.
  auto sim = test::make_sim(test::two_senders(3, 5, "run: {until: 200us}\n"), strict5);
  sim->run();
  auto [c3, c5] = bottleneck_frames(*sim);
  EXPECT_GT(c5, 20 * c3) << c3 << " vs " << c5;
}

TEST(Policies, RoundRobinChosenPerPortAlternatesTheClasses) {
  // The same override, but round-robin on every port: one frame of each class in turn. The
  // override is inert there (round-robin reads no sched): allowed, it is only a warning.
  run_options o;
  o.sets = strict5;
  o.sets.emplace_back("sw0.port*.scheduler", "round-robin");
  o.allow_inert = true;
  auto sim =
      std::make_unique<simulation>(load_scenario_text(test::two_senders(3, 5, "run: {until: 200us}\n"), "test"), o);
  EXPECT_EQ(sim->build_warnings().size(), 1u);
  sim->run();
  auto [c3, c5] = bottleneck_frames(*sim);
  EXPECT_GT(c3, 100u);
  EXPECT_LE(c3 > c5 ? c3 - c5 : c5 - c3, 1u) << c3 << " vs " << c5;
}

TEST(Policies, EcmpForwardingSpreadsFlowsOverBothPaths) {
  auto sim = test::make_sim(two_paths());
  sim->run();
  const switch_model& s0 = *sim->fabric_model().switches[0];
  EXPECT_GT(s0.ports[1]->queue(0).frames_out, 0u);
  EXPECT_GT(s0.ports[2]->queue(0).frames_out, 0u);
}

TEST(Policies, FirstForwardingChosenPerSwitchTakesTheLowestPort) {
  auto sim = test::make_sim(two_paths(), {{"s0.forwarding", "first"}});
  sim->run();
  const switch_model& s0 = *sim->fabric_model().switches[0];
  EXPECT_EQ(s0.ports[1]->queue(0).frames_out, 8u * 20);  // 8 flows of 20 x 1000 B
  EXPECT_EQ(s0.ports[2]->queue(0).frames_out, 0u);
}

TEST(Policies, EcnMarkerOnACongestedPortIsCountedAtTheReceivingNic) {
  auto sim = test::make_sim(
      test::two_senders(3, 3, "run: {until: 200us}\n"),
      {{"sw0.port*.prio3.cp", "ecn-threshold"}, {"sw0.port*.prio3.ecn.kmin", "20KB"}, {"r0.np", "ecn-count"}});
  sim->run();
  nlohmann::json s = sim->summary();
  double marked = 0;
  for (auto& [name, value] : s["counters"].items())
    if (name.find(".ecn_marked") != std::string::npos) marked += value.get<double>();
  EXPECT_GT(marked, 100);
  // Marked on dequeue: the last few marked frames may still be on the link at the end.
  const double received = counter(s, "r0.np.ce_frames");
  EXPECT_LE(received, marked);
  EXPECT_GE(received, marked - 10);
  EXPECT_EQ(counter(s, "r0.np.flow0.ce_frames") + counter(s, "r0.np.flow1.ce_frames"), received);
  EXPECT_GT(counter(s, "r0.np.flow0.ce_frames"), 0);
  EXPECT_GT(counter(s, "r0.np.flow1.ce_frames"), 0);
}

TEST(Policies, WithoutACongestionPointNothingIsMarked) {
  auto sim = test::make_sim(test::two_senders(3, 3, "run: {until: 200us}\n"), {{"r0.np", "ecn-count"}});
  sim->run();
  nlohmann::json s = sim->summary();
  EXPECT_EQ(counter(s, "r0.np.ce_frames"), 0);
  for (auto& [name, value] : s["counters"].items()) EXPECT_EQ(name.find("ecn_marked"), std::string::npos) << name;
  double deepest = 0;  // congested all the same
  for (auto& [name, value] : s["counters"].items())
    if (name.find("prio3.queue_max_bytes") != std::string::npos) deepest = std::max(deepest, value.get<double>());
  EXPECT_GT(deepest, 20e3);
}

namespace {
// The scheduler choices: the RTL build adds strict-dwrr-rtl (docs/rtl.md).
#ifdef SLUICE_WITH_VERILATOR
const std::string schedulers = "{strict-dwrr, ib-vlarb, round-robin, strict, strict-dwrr-rtl}";
#else
const std::string schedulers = "{strict-dwrr, ib-vlarb, round-robin, strict}";
#endif
}  // namespace

TEST(Policies, UnknownNameIsAnErrorNamingTheParameterAndTheChoices) {
  try {
    test::make_sim(test::two_senders(3, 3, ""), {{"sw0.port2.scheduler", "wfq"}});
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(e.what(), "--set: sw0.port2.scheduler: 'wfq' is not one of " + schedulers);
  }
}

TEST(Policies, ParameterOfAPolicyNotChosenMatchesNothing) {
  EXPECT_THROW(test::make_sim(test::two_senders(3, 3, ""), {{"sw0.port2.prio3.ecn.kmin", "10KB"}}), config_error);
}

TEST(Policies, TheBinaryListsTheRegisteredNamesAndTakesThemFromSet) {
  // The policy files are linked whole into `sluice` too: every registered name is a choice.
  test::command_result r = test::run_cli("params " + test::scenario_path("incast.yaml") +
                                         " --set 'sw0.port1.scheduler=round-robin' --match 'sw0.port1.scheduler'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(schedulers), std::string::npos) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("strict-dwrr +round-robin +\\{")))
      << r.output;  // default, value, range
  r = test::run_cli("params " + test::scenario_path("incast.yaml") + " --set 'sw0.port1.prio3.cp=ecn-threshold'" +
                    " --set 'sw0.port1.prio3.ecn.kmin=10KB' --match 'sw0.port1.prio3.ecn.*'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sw0.port1.prio3.ecn.kmin"), std::string::npos) << r.output;
}

namespace {
// A test reaction point whose maker declares one parameter per NIC; every flow's instance reads
// it (and counts its frames) through the maker.
const param_spec<double> test_gain_spec{"rp.test_gain", "test: a per-NIC reaction point parameter", 1.0, 0.0, 10.0};
struct shared_gain_maker final : reaction_point_maker {
  explicit shared_gain_maker(const sc_core::sc_object& nic) : gain(&nic, test_gain_spec) {}
  struct rp final : reaction_point_if {
    explicit rp(const shared_gain_maker& m) : maker(m) {}
    void on_feedback(const packet_header&, uint64_t) override {}
    void on_send(const packet_header&, uint64_t) override { seen_gain = maker.gain(); }
    const shared_gain_maker& maker;
    double seen_gain = 0;
  };
  std::unique_ptr<reaction_point_if> make(const flow&, rate_limiter_if&) override {
    auto r = std::make_unique<rp>(*this);
    made.push_back(r.get());
    return r;
  }
  param<double> gain;
  std::vector<rp*> made;
};
shared_gain_maker* last_maker = nullptr;
const policy_registrar<rp_policies> shared_gain_reg{"test-shared-gain", "test: one parameter per NIC",
                                                    [](const sc_core::sc_object& nic, const mac_port&) {
                                                      auto m = std::make_unique<shared_gain_maker>(nic);
                                                      last_maker = m.get();
                                                      return m;
                                                    }};
}  // namespace

TEST(Policies, ReactionPointParametersAreDeclaredOncePerNicAndReadByEveryFlow) {
  auto sim = test::make_sim(test::two_nics("{kind: finite, src: a, dst: b, size: 10KB}, "
                                           "{kind: finite, src: a, dst: b, size: 10KB}",
                                           "run: {until: 50us}\n"),
                            {{"a.rp", "test-shared-gain"}, {"a.rp.test_gain", "2.5"}});
  std::size_t named = 0;
  for (param_base* p : param_registry::instance().all()) named += p->name() == "a.rp.test_gain";
  EXPECT_EQ(named, 1u);  // all() also fails on a name declared twice
  sim->run();
  ASSERT_NE(last_maker, nullptr);
  ASSERT_EQ(last_maker->made.size(), 2u);  // one reaction point per flow
  for (auto* r : last_maker->made) EXPECT_EQ(r->seen_gain, 2.5);
}

namespace {
const std::vector<std::pair<std::string, std::string>> dcqcn_by_hand = {
    {"sw0.port*.prio3.cp", "dcqcn"}, {"r0.np", "dcqcn"}, {"h*.rp", "dcqcn"}};
std::vector<std::pair<std::string, std::string>> with(std::vector<std::pair<std::string, std::string>> sets,
                                                      std::pair<std::string, std::string> more) {
  sets.push_back(std::move(more));
  return sets;
}
}  // namespace

TEST(Dcqcn, CnpsAreRealFramesThatCutTheSendersRates) {
  auto sim = test::make_sim(test::two_senders(3, 3, "run: {until: 500us}\n"), dcqcn_by_hand);
  sim->run();
  nlohmann::json s = sim->summary();
  const double sent = counter(s, "r0.cnp_sent");
  EXPECT_GT(sent, 2);
  // Every CNP made was a frame the receiver's MAC sent, crossing the switch to a sender (the
  // last one may still be on its way).
  EXPECT_EQ(counter(s, "r0.np.flow0.cnps") + counter(s, "r0.np.flow1.cnps"), sent);
  const double received = counter(s, "h0.cnp_received") + counter(s, "h1.cnp_received");
  EXPECT_LE(received, sent);
  EXPECT_GE(received, sent - 2);
  EXPECT_EQ(counter(s, "h0.feedback_unmatched") + counter(s, "h1.feedback_unmatched"), 0);
  EXPECT_GT(counter(s, "sw0.port2.prio3.ecn_marked"), 0);
  // The rate limiters were cut below the 40 Gb/s line rate.
  fabric& f = sim->fabric_model();
  for (int i = 0; i < 2; ++i) {
    nic& n = *f.nics[i];
    const uint32_t id = n.flows_sent().at(0);
    EXPECT_GT(n.limiter(id).rate().bps, 0);
    EXPECT_LT(n.limiter(id).rate().bps, 40e9);
    EXPECT_GT(n.reaction_point(id)->target_rate().bps, 0);
  }
}

TEST(Dcqcn, KminAboveKmaxIsAOneLineError) {
  try {
    test::make_sim(test::two_senders(3, 3, ""), with(dcqcn_by_hand, {"sw0.port2.prio3.ecn.kmin", "300KB"}));
    FAIL();
  } catch (const config_error& e) {
    EXPECT_STREQ(e.what(), "sw0.port2.prio3.ecn.kmin: 300KB is above sw0.port2.prio3.ecn.kmax (200KB)");
  }
}

TEST(Dcqcn, NegativeGainIsAnErrorNamingTheParameter) {
  try {
    test::make_sim(test::two_senders(3, 3, ""), with(dcqcn_by_hand, {"h0.rp.g", "-0.5"}));
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(std::string(e.what()).find("--set: h0.rp.g: '-0.5' is outside the valid range"), 0u) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

TEST(Dcqcn, CcSwitchesEveryFlowAndIsOverriddenBySet) {
  run_options o;
  o.cc = "dcqcn";
  o.sets = {{"sw0.port1.prio3.cp", "ecn-threshold"}};  // --set still wins over --cc
  simulation sim(load_scenario_text(test::two_senders(3, 3, "")), o);
  fabric& f = sim.fabric_model();
  for (auto& n : f.nics) {
    const bool sends = !n->flows_sent().empty();
    EXPECT_EQ(n->rp(), sends ? "dcqcn" : "none") << n->name();
    EXPECT_EQ(n->np(), sends ? "none" : "dcqcn") << n->name();
  }
  for (auto& port : f.switches[0]->ports) {
    EXPECT_EQ(port->cp[3](), std::string(port->name()) == "sw0.port1" ? "ecn-threshold" : "dcqcn");
    EXPECT_EQ(port->cp[0](), "none");  // no traffic on class 0
  }
}

TEST(Dcqcn, TrafficGroupCcAndCcNone) {
  const std::string yaml =
      "platform: {kind: incast, senders: 2, link_rate: 40Gbps, link_delay: 1us}\ntraffic:\n"
      "  - {kind: constant, src: h0, dst: r0, rate: 40Gbps, priority: 3, cc: dcqcn}\n"
      "  - {kind: constant, src: h1, dst: r0, rate: 40Gbps, priority: 2}\n";
  {
    simulation sim(load_scenario_text(yaml), run_options{});
    fabric& f = sim.fabric_model();
    EXPECT_EQ(f.nics[0]->rp(), "dcqcn");
    EXPECT_EQ(f.nics[1]->rp(), "none");
    EXPECT_EQ(f.switches[0]->ports[0]->cp[3](), "dcqcn");
    EXPECT_EQ(f.switches[0]->ports[0]->cp[2](), "none");
  }
  EXPECT_THROW(load_scenario_text(yaml + "  - {kind: constant, src: h1, dst: r0, rate: 1Gbps, cc: fast}\n"),
               config_error);
}

TEST(Dcqcn, UnknownCcIsAOneLineErrorListingTheNames) {
  test::command_result r = test::run_cli("run " + test::scenario_path("dumbbell.yaml") + " --cc fast -q");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "sluice: error: --cc: 'fast' is not one of {" + cc_scheme_registry::instance().names() + "}\n");
  r = test::run_cli("params " + test::scenario_path("dumbbell.yaml") + " --cc dcqcn --match 'h0.rp.*'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("h0.rp.rai"), std::string::npos) << r.output;
  r = test::run_cli("stats " + test::scenario_path("dumbbell.yaml") + " --cc dcqcn");
  EXPECT_EQ(r.status, 2);
}

TEST(Dcqcn, AnRtlReactionPointNamedAsASchemeOrMissingFromTheBuildIsAOneLineErrorSayingWhy) {
  const std::string dumbbell = test::scenario_path("dumbbell.yaml");
  test::command_result cc = test::run_cli("run " + dumbbell + " --cc dcqcn-rtl -q");
  test::command_result rp = test::run_cli("run " + dumbbell + " --cc dcqcn --set 'h0.rp=dcqcn-rtl' -q --until 10us");
  const std::string schemes =
      "sluice: error: --cc: 'dcqcn-rtl' is not one of {" + cc_scheme_registry::instance().names();
  EXPECT_EQ(cc.status, 2);
#ifdef SLUICE_WITH_VERILATOR
  EXPECT_EQ(cc.output, schemes +
                           "} ('dcqcn-rtl' is a reaction point: a scheme with --cc, then --set "
                           "'<nic>.rp=dcqcn-rtl')\n");
  EXPECT_EQ(rp.status, 0) << rp.output;
#else
  // The plain build (SLUICE_WITH_VERILATOR=OFF) has no RTL blocks, and says so.
  const std::string why = std::string("(dcqcn-rtl: ") + without_verilator + ")\n";
  EXPECT_EQ(cc.output, schemes + "} " + why);
  EXPECT_EQ(rp.status, 2);
  EXPECT_EQ(rp.output.rfind("sluice: error: --set: h0.rp: 'dcqcn-rtl' is not one of {", 0), 0u) << rp.output;
  EXPECT_EQ(rp.output.size() - rp.output.rfind(why), why.size()) << rp.output;
#endif
}

TEST(Dcqcn, FeedbackTotalsAndFlowRateSeries) {
  const std::string dir = ::testing::TempDir() + "/dcqcn_out";
  test::command_result r = test::run_cli("run " + test::scenario_path("dumbbell.yaml") +
                                         " --cc dcqcn --until 1ms --sample-period 100us -q --out " + dir);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(dir + "/summary.json");
  nlohmann::json s = nlohmann::json::parse(in);
  double received = 0, per_flow = 0;
  for (const char* h : {"h0", "h1", "h2", "h3"}) received += counter(s, std::string(h) + ".cnp_received");
  for (const auto& f : s["flows"]) per_flow += f["cnp_frames"].get<double>();
  EXPECT_GT(received, 0);
  EXPECT_EQ(s["totals"]["cnp_frames"].get<double>(), received);  // counted where they arrive
  EXPECT_EQ(per_flow, received);
  EXPECT_EQ(s["totals"]["cnm_frames"], 0);
  std::ifstream csv(dir + "/flow_rate.csv");
  std::string header, line, last;
  std::getline(csv, header);
  EXPECT_EQ(header, "time_us,h0->r0,h0->r0 target,h1->r1,h1->r1 target,h2->r2,h2->r2 target,h3->r3,h3->r3 target");
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("100.000,", 0), 0u) << line;
  while (std::getline(csv, line)) last = line;
  double t, rate;  // at 1 ms every flow was cut well below its 20 Gb/s pace
  ASSERT_EQ(std::sscanf(last.c_str(), "%lf,%lf", &t, &rate), 2) << last;
  EXPECT_EQ(t, 1000.0);
  EXPECT_LT(rate, 10e9);
  EXPECT_GT(rate, 100e6);
}
