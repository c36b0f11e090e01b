// Source adaptive routing (R3C2, issue 21): the switches' reading of a path id, and one flow's
// paths at the NIC driven by hand: per-path limiters cut only by their own path's notifications,
// traffic off a hot path at the next frame, a limited path keeping its limiter's share, and the
// activation rules.
#include "models/nic/source_routing.h"

#include <gtest/gtest.h>

#include <set>

#include "models/protocol/cnm_frame.h"
#include "models/switch/congestion_view.h"

using namespace sluice;

namespace {

// Path id p (tagged p + 1) takes digit tier-1 of p in base n among n equal-cost ports: on a
// k = 8 fat tree, 16 ids give the 16 (aggregation, core) pairs, one tree each.
TEST(SourceRoutingTable, APathIdPicksOneDigitPerTier) {
  forwarding_table edge, agg;
  edge.set_route(7, {4, 5, 6, 7});
  agg.set_route(7, {4, 5, 6, 7});
  edge.honour_paths(1);
  agg.honour_paths(2);
  frame_fields f;
  f.dst = 7;
  std::set<std::pair<int, int>> trees;
  for (int p = 0; p < 16; ++p) {
    f.path = static_cast<uint8_t>(p + 1);
    const int up = edge.lookup(f, 0), next = agg.lookup(f, 0);
    EXPECT_EQ(up, 4 + p % 4);
    EXPECT_EQ(next, 4 + (p / 4) % 4);
    trees.insert({up, next});
  }
  EXPECT_EQ(trees.size(), 16u);
  // Untagged frames keep the table's ECMP hash; a single port is kept whatever the tag.
  f.path = 0;
  EXPECT_EQ(edge.lookup(f, 0), edge.lookup(f.dst, f.src, f.flow_id));
  edge.set_route(3, {2});
  f.dst = 3;
  f.path = 9;
  EXPECT_EQ(edge.lookup(f, 0), 2);
}

// A reaction point that halves its path's limiter on each notification (from line rate).
struct halving_rp final : reaction_point_if {
  explicit halving_rp(rate_limiter_if& l) : limiter(l) {}
  void on_feedback(const packet_header&, uint64_t) override {
    const double now = limiter.rate().bps > 0 ? limiter.rate().bps : 40e9;
    limiter.set_rate(data_rate{now / 2});
    ++cuts;
  }
  void on_send(const packet_header&, uint64_t) override { ++sent; }
  rate_limiter_if& limiter;
  int cuts = 0, sent = 0;
};
struct halving_maker final : reaction_point_maker {
  std::unique_ptr<reaction_point_if> make(const flow&, rate_limiter_if& l) override {
    auto r = std::make_unique<halving_rp>(l);
    made.push_back(r.get());
    return r;
  }
  std::vector<halving_rp*> made;
};

constexpr uint64_t us = 1'000'000;  // ps
const data_rate line{40e9};
constexpr uint64_t frame = 1000;  // wire bytes: 200 ns at 40 Gb/s

// Sends one frame at the flow's next send time (not before `now`); returns its path id (0-based).
int send(multipath_flow& m, uint64_t& now) {
  now = std::max(now, m.next_send_ps());
  static_cast<rate_limiter_if&>(m).on_send(now, frame, line);
  packet_header h;
  m.tag(h);
  static_cast<reaction_point_if&>(m).on_send(h, now);
  return h.path - 1;
}

packet_header notification_on(int path) {
  packet_header h;
  h.kind = frame_kind::cnm;
  h.path = static_cast<uint8_t>(path + 1);
  return h;
}

// A CNM about `path` from congestion point `cpid` (its image carries the CPID).
struct cnm_notification {
  frame_image image{};
  packet_header h = notification_on(0);
  cnm_notification(int path, uint64_t cpid) {
    h = notification_on(path);
    cnm_pdu pdu;
    pdu.cpid = cpid;
    encode_cnm(pdu, 1, 2, 3, image);
    h.image = &image;
  }
};

multipath_flow::config paths(uint32_t count, uint32_t active, uint32_t first) {
  multipath_flow::config c;
  c.paths = count;
  c.max_active = active;
  c.first = first;
  c.aging_ps = 100 * us;
  return c;
}

}  // namespace

// One path, no congestion: every frame on the first path, at line rate.
TEST(SourceRouting, WithoutCongestionAFlowKeepsItsFirstPath) {
  flow f;
  halving_maker maker;
  multipath_flow m(f, paths(16, 4, 5), &maker);
  uint64_t now = 0;
  for (int i = 0; i < 100; ++i) ASSERT_EQ(send(m, now), 5);
  EXPECT_EQ(now, 99 * line.serialization_ps(frame));
  EXPECT_EQ(m.active().size(), 1u);
  EXPECT_EQ(maker.made.size(), 1u);  // a reaction point per active path only
}

// A notification names its path: that path's reaction point cuts that path's limiter, and no
// other. Traffic leaves the hot path at the next frame, for a path no notification marked.
TEST(SourceRouting, PerPathLimitersActIndependently) {
  flow f;
  halving_maker maker;
  multipath_flow m(f, paths(4, 4, 1), &maker);
  uint64_t now = 0;
  for (int i = 0; i < 10; ++i) send(m, now);
  m.on_feedback(notification_on(1), now);
  ASSERT_EQ(m.active().size(), 2u);
  EXPECT_EQ(m.active()[1], 2);  // the next path after the first
  EXPECT_EQ(m.path_limiter(1).rate().bps, 20e9);
  EXPECT_EQ(m.path_limiter(2).rate().bps, 0);  // unlimited
  EXPECT_EQ(send(m, now), 2);                  // off the hot path at once
  // A notification on path 2 cuts path 2 alone, and activates path 3 (both others are hot).
  m.on_feedback(notification_on(2), now);
  m.on_feedback(notification_on(2), now);
  EXPECT_EQ(m.path_limiter(1).rate().bps, 20e9);
  EXPECT_EQ(m.path_limiter(2).rate().bps, 10e9);
  ASSERT_EQ(m.active().size(), 3u);
  EXPECT_EQ(m.active()[2], 3);
  EXPECT_EQ(maker.made[0]->cuts, 1);
  EXPECT_EQ(maker.made[1]->cuts, 2);
  EXPECT_EQ(maker.made[2]->cuts, 0);
  EXPECT_EQ(m.notifications(), 3u);
  EXPECT_EQ(m.activations(), 2u);
  // The composite's limit is the sum of the active paths' (one unlimited: no limit).
  EXPECT_EQ(m.rate().bps, 0);
}

// Once the first path is cool again (r3c2.aging), it comes first again, but only at the rate its
// limiter allows: a quarter of line rate there, the rest on the activated path.
TEST(SourceRouting, ALimitedPathKeepsTheShareItsLimiterAllows) {
  flow f;
  halving_maker maker;
  multipath_flow m(f, paths(2, 2, 0), &maker);
  uint64_t now = 0;
  send(m, now);
  m.on_feedback(notification_on(0), now);
  m.on_feedback(notification_on(0), now);  // path 0 at 10 Gb/s, hot
  for (int i = 0; i < 100; ++i) ASSERT_EQ(send(m, now), 1) << "frame " << i;
  now += 100 * us;  // path 0 cools down
  int on_first = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) on_first += send(m, now) == 0;
  EXPECT_NEAR(on_first, n / 4, n / 100);
  EXPECT_EQ(m.frames_on(0) + m.frames_on(1), static_cast<uint64_t>(n) + 101);
}

// Without rate control (no maker) a notification still moves traffic: the hot path is used
// only when no cool path may send. With every path hot, nothing is activated.
TEST(SourceRouting, RouteOnlyMovesTrafficAndStopsWhenEveryPathIsHot) {
  flow f;
  multipath_flow m(f, paths(2, 4, 0), nullptr);
  uint64_t now = 0;
  send(m, now);
  m.on_feedback(notification_on(0), now);
  EXPECT_EQ(send(m, now), 1);
  m.on_feedback(notification_on(1), now);
  EXPECT_EQ(m.active().size(), 2u);
  EXPECT_EQ(send(m, now), 0);  // both hot: activation order
  EXPECT_EQ(m.path_limiter(0).rate().bps, 0);
  EXPECT_EQ(m.activations(), 1u);
}

// max_active bounds the paths in use; an activated path that carried nothing for r3c2.aging gives
// its slot up to the next activation. ACKs are not notifications.
TEST(SourceRouting, MaxActiveBoundsThePathsAndIdlePathsGiveTheirSlotUp) {
  flow f;
  halving_maker maker;
  multipath_flow m(f, paths(8, 2, 0), &maker);
  uint64_t now = 0;
  send(m, now);
  packet_header ack = notification_on(0);
  ack.kind = frame_kind::ack;
  m.on_feedback(ack, now);
  EXPECT_EQ(m.active().size(), 1u);
  m.on_feedback(notification_on(0), now);
  ASSERT_EQ(m.active().size(), 2u);
  m.on_feedback(notification_on(1), now);  // both hot, two active: no third
  EXPECT_EQ(m.active().size(), 2u);
  now += 150 * us;  // path 1 idle for longer than aging; both paths cool again
  m.on_feedback(notification_on(0), now);
  for (int i = 0; i < 10; ++i) send(m, now);  // on path 1, cool
  m.on_feedback(notification_on(1), now);     // both hot again: path 1 carried frames, stays
  EXPECT_EQ(m.active().size(), 2u);
  EXPECT_EQ(m.active()[1], 1);
  now += 150 * us;
  m.on_feedback(notification_on(0), now);  // path 1 cool: nothing to do
  m.on_feedback(notification_on(1), now);  // path 1 idle since: its slot goes to path 2
  ASSERT_EQ(m.active().size(), 2u);
  EXPECT_EQ(m.active()[1], 2);
}

// "Where is the hotspot?" ([R3C2]): a congestion point that CNMs about two paths name is one no
// path avoids (the destination's last hop); it activates nothing more. Another one does.
TEST(SourceRouting, AHotspotTwoPathsShareActivatesNoMorePaths) {
  flow f;
  halving_maker maker;
  multipath_flow m(f, paths(8, 4, 0), &maker);
  uint64_t now = 0;
  send(m, now);
  m.on_feedback(cnm_notification(0, 77).h, now);  // the last hop, seen on path 0: path 1 activated
  ASSERT_EQ(m.active().size(), 2u);
  m.on_feedback(cnm_notification(1, 77).h, now);  // the same point on path 1: shared, nothing more
  EXPECT_EQ(m.active().size(), 2u);
  EXPECT_EQ(m.path_limiter(1).rate().bps, 20e9);  // its limiter still cut
  m.on_feedback(cnm_notification(1, 78).h, now);  // another point on path 1: avoidable
  EXPECT_EQ(m.active().size(), 3u);
}
