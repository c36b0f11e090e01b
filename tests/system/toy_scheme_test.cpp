// A congestion-control scheme written for this test only, registered from this file: nothing
// under models/ or platforms/ names it. It is one scheme object (its name, fabric, roles and the
// feedback kind it adds), plus its three roles in the role registries:
//   CP "toy": marks CE on data frames leaving a queue deeper than prio<k>.toy.kmin;
//   NP "toy": answers each CE-marked frame with a "toy_fb" frame, a kind this file adds;
//   RP "toy": halves its flow's rate on each toy_fb (not below 1 Gb/s).
// Run with --cc toy on the dumbbell, the CP marks and the RP slows its flow down.
// Its own test executable (scheme_tests), so no other test process sees the scheme.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "models/cc/congestion_point.h"
#include "models/cc/notification_point.h"
#include "models/cc/reaction_point.h"
#include "models/cc/scheme.h"
#include "models/core/frame_kinds.h"
#include "models/core/params.h"
#include "models/core/stats.h"
#include "tests/support/harness.h"

namespace sluice {
namespace {

const frame_kind_registrar toy_feedback{"toy_fb", "toy feedback", frame_role::feedback};

const param_spec<byte_count> kmin_spec{"toy.kmin", "toy: queue depth above which data frames are marked CE",
                                       byte_count{20000}, byte_count{0}, byte_count{1ull << 30}};

uint64_t marks = 0, feedback_sent = 0, cuts = 0;
double lowest_rate_bps = 0;

class toy_cp final : public congestion_point_if {
 public:
  toy_cp(const sc_core::sc_object& port, int cls) : kmin_(&port, kmin_spec, cls) {}
  void on_enqueue(packet_header&, const queue_view&) override {}
  void on_dequeue(packet_header& h, const queue_view& q) override {
    if (q.bytes <= kmin_().bytes) return;
    h.ecn = 3;
    ++marks;
  }

 private:
  param<byte_count> kmin_;
};

class toy_np final : public notification_point_if {
 public:
  explicit toy_np(control_sender_if& sender) : sender_(sender) {}
  void on_data(const packet_header& h, uint64_t now_ps) override {
    if (h.ecn != 3) return;
    tlm::tlm_generic_payload* p = make_feedback_frame(toy_feedback.kind, h, sender_.node_id(), now_ps);
    header(*p).size = 64;
    sender_.send_control(p);
    ++feedback_sent;
  }

 private:
  control_sender_if& sender_;
};

class toy_rp final : public reaction_point_if {
 public:
  toy_rp(rate_limiter_if& limiter, const mac_port& mac) : limiter_(limiter), mac_(mac) {}
  void on_feedback(const packet_header& h, uint64_t) override {
    if (h.kind != toy_feedback.kind) return;
    const double now = limiter_.rate().bps > 0 ? limiter_.rate().bps : mac_.wire().current_rate().bps;
    const double next = std::max(now / 2, 1e9);
    limiter_.set_rate(data_rate{next});
    ++cuts;
    lowest_rate_bps = lowest_rate_bps == 0 ? next : std::min(lowest_rate_bps, next);
  }
  void on_send(const packet_header&, uint64_t) override {}

 private:
  rate_limiter_if& limiter_;
  const mac_port& mac_;
};

class toy_maker final : public reaction_point_maker {
 public:
  explicit toy_maker(const mac_port& mac) : mac_(mac) {}
  std::unique_ptr<reaction_point_if> make(const flow&, rate_limiter_if& limiter) override {
    return std::make_unique<toy_rp>(limiter, mac_);
  }

 private:
  const mac_port& mac_;
};

const policy_registrar<cp_policies> toy_cp_reg{
    "toy", "test scheme: CE above toy.kmin",
    [](const sc_core::sc_object& port, int cls, frame_injector_if&) { return std::make_unique<toy_cp>(port, cls); }};
const policy_registrar<np_policies> toy_np_reg{"toy", "test scheme: a toy_fb frame per CE frame",
                                               [](const sc_core::sc_object&, control_sender_if& sender,
                                                  const flow_table&) { return std::make_unique<toy_np>(sender); }};
const policy_registrar<rp_policies> toy_rp_reg{
    "toy", "test scheme: halve the rate per toy_fb",
    [](const sc_core::sc_object&, const mac_port& mac) { return std::make_unique<toy_maker>(mac); }};
const cc_scheme_registrar toy_scheme{"toy",
                                     "a scheme registered by a test",
                                     cc_fabric::ethernet,
                                     "toy",
                                     "toy",
                                     "toy",
                                     {{toy_feedback.kind, "toy_fb", "toy feedback"}}};

TEST(SchemeRegistry, ATestOnlySchemeRunsEndToEndOnTheDumbbell) {
  EXPECT_GE(static_cast<int>(toy_feedback.kind), shipped_frame_kinds);  // a new number; the shipped ones keep theirs
  run_options o;
  o.cc = "toy";
  simulation sim(load_scenario_file(test::scenario_path("dumbbell.yaml")), o);
  EXPECT_EQ(sim.fabric_model().switches[0]->ports[4]->cp[3](), "toy");
  for (auto& n : sim.fabric_model().nics) EXPECT_EQ(n->rp(), n->flows_sent().empty() ? "none" : "toy") << n->name();
  sim.run();
  const nlohmann::json s = sim.summary();
  EXPECT_GT(marks, 0u) << "the CP marks";
  EXPECT_GT(feedback_sent, 0u) << "the NP answers";
  EXPECT_GT(cuts, 0u) << "the RP hears its feedback";
  EXPECT_GT(lowest_rate_bps, 0);
  EXPECT_LT(lowest_rate_bps, 20e9) << "the RP slowed its flow below the 20 Gb/s it offers";
  // The feedback kind the scheme added is dispatched to the RP and counted like the shipped ones.
  double received = 0;
  for (const auto& [name, value] : s["counters"].items())
    if (name.size() > 16 && name.compare(name.size() - 16, 16, ".toy_fb_received") == 0)
      received += value.get<double>();
  EXPECT_EQ(received, static_cast<double>(feedback_sent));
  EXPECT_EQ(s["totals"].value("toy_fb_frames", 0.0), received) << "the summary's totals count the new kind";
  EXPECT_EQ(s["totals"]["cnm_frames"], 0);
  double per_flow = 0;  // ... and each flow's row its own
  for (const auto& fl : s["flows"]) per_flow += fl.value("toy_fb_frames", 0.0);
  EXPECT_EQ(per_flow, received) << "the flows count the new kind";
  EXPECT_EQ(test::counter(s, "h0.feedback_unmatched"), 0);
}

// The scheme is listed, and chosen by name, like the shipped ones.
TEST(SchemeRegistry, TheTestSchemeIsListedWithTheShippedOnes) {
  const std::string names = cc_scheme_registry::instance().names();
  EXPECT_NE(names.find("toy"), std::string::npos) << names;
  EXPECT_NE(names.find("qcn"), std::string::npos) << names;
  EXPECT_EQ(cc_scheme_registry::instance().named("toy", "--cc").rp, "toy");
}

}  // namespace
}  // namespace sluice
