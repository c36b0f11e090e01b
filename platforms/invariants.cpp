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
  if (now_ps < next_check_ps_) return;
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
}

void invariant_checker::monotone(uint64_t value, const char* where, int cls, const char* what) {
  if (next_ == last_.size()) last_.push_back(0);
  uint64_t& last = last_[next_++];
  if (value < last)
    invariant_failed(where, cls,
                     std::string("counter ") + what + " went backwards (" + std::to_string(last) + " -> " +
                         std::to_string(value) + ")");
  last = value;
}

void invariant_checker::check(uint64_t now_ps) {
  next_ = 0;
  for (const auto& sw : fabric_.switches)
    for (const auto& p : sw->ports) check_switch_port(*sw, *p, now_ps);
  for (const pfc* fc : nic_pfcs_) check_pfc(*fc, nullptr, 0, now_ps);
  for (const auto& [fc, peer] : credit_peers_) check_credits(*fc, peer, now_ps);
}

void invariant_checker::check_switch_port(const switch_model& sw, const switch_port& p, uint64_t now_ps) {
  const char* where = p.name();
  const mmu_if& mmu = sw.active_mmu();
  for (int c = 0; c < p.classes(); ++c) {
    const queue_stats& q = p.queue(c);
    const egress_port::discarded& d = p.egress.dropped(c);
    monotone(q.frames_in, where, c, "frames_in");
    monotone(q.frames_out, where, c, "frames_out");
    monotone(q.bytes_out, where, c, "bytes_out");
    monotone(p.drops(c), where, c, "drops");
    monotone(d.frames, where, c, "watchdog_dropped");
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
    monotone(fc.pause_received(c), where, c, "pause_received");
    monotone(fc.resume_received(c), where, c, "resume_received");
    monotone(fc.xoff_sent(c), where, c, "pause_sent");
    monotone(fc.refresh_sent(c), where, c, "refresh_sent");
    monotone(fc.xon_sent(c), where, c, "resume_sent");
    const uint64_t paused = to_ps(fc.paused_time(c, now));
    monotone(paused, where, c, "paused_time");
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
  monotone(fc.packets_sent(), where, -1, "packets_sent");
  monotone(fc.packets_received(), where, -1, "packets_received");
  const uint64_t pool = fc.pool().bytes / 64, peer_pool = peer->pool().bytes / 64;
  for (int vl = 0; vl < fc.classes() && vl < credit_flow_control::management_vl; ++vl) {
    monotone(fc.blocked_periods(vl), where, vl, "credit_blocked_periods");
    const uint64_t blocked = fc.blocked_ps(vl, now_ps);
    monotone(blocked, where, vl, "credit_blocked_time");
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
