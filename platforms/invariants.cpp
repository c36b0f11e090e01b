#include "platforms/invariants.h"

#include <unordered_map>

#include "models/core/invariant.h"

namespace sluice {

namespace {
const param_spec<sc_core::sc_time> interval_spec{
    "invariants.interval",
    "the always-on invariants are checked at the first sample boundary at or after each multiple of this interval "
    "(0: at every sample) and at the end of the run",
    sc_core::sc_time(1, sc_core::SC_MS), sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
}  // namespace

void invariant_checker::on_sample(uint64_t now_ps) {
  const uint64_t every = to_ps(interval());
  if (!started_) {
    started_ = true;
    next_check_ps_ = every;
  }
  // At the end of the run the last check follows at once, and stores nothing (check_counters).
  if (now_ps < next_check_ps_ || now_ps >= end_ps_) return;
  check(now_ps);
  if (every) next_check_ps_ = (now_ps / every + 1) * every;
}

invariant_checker::invariant_checker(const fabric& f) : interval(nullptr, interval_spec), fabric_(f) {
  for (const link_entry& l : f.links)
    if (l.a.credits && l.b.credits) {
      credit_peers_.push_back({l.a.credits, l.b.credits});
      credit_peers_.push_back({l.b.credits, l.a.credits});
    }
  for (const auto& n : f.nics)
    if (!n->port.credits) nic_pfcs_.push_back(&n->port.flow_control);
  for (std::size_t i = 0; i < f.nics.size(); ++i) {
    const uint32_t node = f.nics[i]->node_id();
    if (node >= nic_of_node_.size()) nic_of_node_.resize(node + 1, -1);
    nic_of_node_[node] = static_cast<int32_t>(i);
  }
}

void invariant_checker::check_counters(bool keep) {
  const stat_registry& stats = stat_registry::instance();
  // Registrations only append (or are forgotten from the end, and then we start again), so the
  // i-th counter visited is the same counter at every check while their number holds.
  if (stats.registrations() < registrations_) last_.clear();
  if (!keep) {
    // The end of the run: nothing compares with these values again, so none is stored. A run
    // shorter than the interval checks here first, and a 10 000-host fabric's 4 million
    // counters would take 32 MB at the run's peak (docs/scale.md).
    std::size_t i = 0;
    stats.for_each_counter([&](const stat_registry::counter_ref& c) {
      const double before = i < last_.size() ? last_[i] : 0.0;
      ++i;
      const double value = c.value();
      if (value < before) [[unlikely]]
        counter_went_backwards(c, before, value);
    });
    return;
  }
  if (stats.registrations() != registrations_) {  // new counters start from 0
    std::size_t n = 0;
    stats.for_each_counter([&n](const stat_registry::counter_ref&) { ++n; });
    last_.resize(n, 0.0);
    registrations_ = stats.registrations();
  }
  double* last = last_.data();
  stats.for_each_counter([&last](const stat_registry::counter_ref& c) {
    const double value = c.value();
    if (value < *last) [[unlikely]]
      counter_went_backwards(c, *last, value);
    *last++ = value;
  });
}

void invariant_checker::counter_went_backwards(const stat_registry::counter_ref& c, double before, double now) {
  invariant_failed(stat_registry::instance().owner_of(c), c.cls,
                   std::string("counter ") + c.desc->leaf + " went backwards (" + format_number(before) + " -> " +
                       format_number(now) + ")");
}

void invariant_checker::check(uint64_t now_ps, bool last) {
  check_counters(!last);
  for (const auto& sw : fabric_.switches)
    for (const auto& p : sw->ports) check_switch_port(*sw, *p, now_ps);
  for (const pfc* fc : nic_pfcs_) check_pfc(*fc, nullptr, 0, now_ps);
  for (const auto& [fc, peer] : credit_peers_) check_credits(*fc, peer, now_ps);
  delivered_.assign(fabric_.nics.size(), 0);
  for (const flow& f : fabric_.flows)
    if (f.spec.dst < nic_of_node_.size() && nic_of_node_[f.spec.dst] >= 0)
      delivered_[static_cast<std::size_t>(nic_of_node_[f.spec.dst])] += f.stats.rx_frames;
  for (std::size_t i = 0; i < fabric_.nics.size(); ++i) check_nic(*fabric_.nics[i], delivered_[i]);
}

void invariant_checker::check_nic(const nic& n, uint64_t delivered) {
  const char* where = n.port.name();
  const tx_scheduler& tx = n.transmitter();
  uint64_t data = 0, control = 0;
  for (int c = 0; c < tx.classes(); ++c) {
    const tx_scheduler::class_counters t = tx.sent(c);
    data += t.frames;
    control += t.control_out;
    if (!t.control_in) continue;
    const uint64_t queued = tx.control_queued(c), queued_bytes = tx.control_queued_bytes(c);
    if (t.control_in != t.control_out + queued)
      invariant_failed(where, c,
                       "control frame conservation: " + std::to_string(t.control_in) + " made != " +
                           std::to_string(t.control_out) + " sent + " + std::to_string(queued) + " queued");
    if (t.control_in_bytes != t.control_out_bytes + queued_bytes)
      invariant_failed(where, c,
                       "control byte conservation: " + std::to_string(t.control_in_bytes) + " made != " +
                           std::to_string(t.control_out_bytes) + " sent + " + std::to_string(queued_bytes) + " queued");
  }
  const uint64_t link_local = n.port.credits ? n.port.credits->packets_sent() : n.port.flow_control.frames_sent();
  if (n.port.mac.frames_sent() != data + control + link_local)
    invariant_failed(where, -1,
                     "frames on the wire: " + std::to_string(n.port.mac.frames_sent()) +
                         " sent by the MAC != " + std::to_string(data) + " data + " + std::to_string(control) +
                         " control + " + std::to_string(link_local) + " flow control");
  const rx_dispatcher& rx = n.receiver();
  if (rx.frames_received() != delivered + rx.held_frames() + rx.data_misdelivered())
    invariant_failed(where, -1,
                     "data frame conservation: " + std::to_string(rx.frames_received()) + " arrived != " +
                         std::to_string(delivered) + " delivered + " + std::to_string(rx.held_frames()) + " held + " +
                         std::to_string(rx.data_misdelivered()) + " misdelivered");
}

void invariant_checker::check_switch_port(const switch_model& sw, const switch_port& p, uint64_t now_ps) {
  const char* where = p.name();
  const mmu_if& mmu = sw.active_mmu();
  for (int c = 0; c < p.classes(); ++c) {
    const queue_stats& q = p.queue(c);
    const egress_port::discarded& d = p.egress.dropped(c);
    if (q.frames_in != q.frames_out + q.frames + d.frames)
      invariant_failed(where, c,
                       "frame conservation: " + std::to_string(q.frames_in) + " in != " + std::to_string(q.frames_out) +
                           " out + " + std::to_string(q.frames) + " queued + " + std::to_string(d.frames) + " dropped");
    if (q.bytes_in != q.bytes_out + q.bytes + d.bytes)
      invariant_failed(where, c,
                       "byte conservation: " + std::to_string(q.bytes_in) + " in != " + std::to_string(q.bytes_out) +
                           " out + " + std::to_string(q.bytes) + " queued + " + std::to_string(d.bytes) + " dropped");
    if (mmu.is_lossless(c)) {
      const uint64_t counted = mmu.usage(p.index(), c).overflows + p.unroutable_drops(c);
      if (p.drops(c) != counted)
        invariant_failed(where, c,
                         "lossless drop without a counted cause: " + std::to_string(p.drops(c)) + " drops, " +
                             std::to_string(mmu.usage(p.index(), c).overflows) + " headroom overflows + " +
                             std::to_string(p.unroutable_drops(c)) + " unroutable");
    }
  }
  if (!p.credits) check_pfc(p.flow_control, &mmu, p.index(), now_ps);
}

void invariant_checker::check_pfc(const pfc& fc, const mmu_if* buffer, int port, uint64_t now_ps) {
  const char* where = fc.name();
  const sc_core::sc_time now = from_ps(now_ps);
  for (int c = 0; c < fc.classes(); ++c) {
    const uint64_t paused = to_ps(fc.paused_time(c, now));
    if (fc.pause_until_ps(c) < fc.pause_from_ps(c))
      invariant_failed(where, c,
                       "pause timer ends before it began (" + format_time(from_ps(fc.pause_from_ps(c))) + " -> " +
                           format_time(from_ps(fc.pause_until_ps(c))) + ")");
    if (paused > now_ps)
      invariant_failed(where, c, "paused for " + format_time(from_ps(paused)) + ", longer than the run so far");
    if (buffer && buffer->is_lossless(c) && buffer->pg_paused(port, c) && !fc.maintains_pause(c))
      invariant_failed(where, c, "the buffer holds the priority group paused but no pause refresh is armed");
  }
}

void invariant_checker::check_credits(const credit_flow_control& fc, const credit_flow_control* peer, uint64_t now_ps) {
  const char* where = fc.name();
  const uint64_t pool = fc.pool().bytes / 64, peer_pool = peer->pool().bytes / 64;
  for (int vl = 0; vl < fc.classes() && vl < credit_flow_control::management_vl; ++vl) {
    const uint64_t blocked = fc.blocked_ps(vl, now_ps);
    if (fc.starved_since_ps(vl) != never_ps && fc.starved_since_ps(vl) > now_ps)
      invariant_failed(
          where, vl, "credit starvation begins in the future (" + format_time(from_ps(fc.starved_since_ps(vl))) + ")");
    if (blocked > now_ps)
      invariant_failed(where, vl,
                       "starved of credit for " + format_time(from_ps(blocked)) + ", longer than the run so far");
    if (!fc.has_vl(vl) || !peer->has_vl(vl)) continue;
    const uint32_t avail = fc.available_blocks(vl);
    if (avail > 2048)
      invariant_failed(where, vl, "credits negative (FCCL - FCTBS = " + std::to_string(avail) + " mod 4096)");
    if (avail > peer->capacity_blocks(vl) + peer_pool)
      invariant_failed(where, vl,
                       "credit of " + std::to_string(avail) + " blocks above the receiver's buffer of " +
                           std::to_string(peer->capacity_blocks(vl) + peer_pool) + " blocks");
    if (fc.used_blocks(vl) > fc.capacity_blocks(vl) + pool)
      invariant_failed(where, vl,
                       "holds " + std::to_string(fc.used_blocks(vl)) + " blocks, above its buffer of " +
                           std::to_string(fc.capacity_blocks(vl) + pool) + " blocks");
  }
}

}  // namespace sluice
