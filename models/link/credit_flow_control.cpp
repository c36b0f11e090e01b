#include "models/link/credit_flow_control.h"

#include <algorithm>
#include <cmath>

#include "models/core/invariant.h"
#include "models/core/probe.h"
#include "models/core/stats.h"
#include "models/protocol/ib_frame.h"

namespace sluice {
namespace {
// A VL's transmit credit, published where it changes (a frame sent, a credit packet received):
// only credits use it, so it is declared here rather than with the shared kinds in probe.h.
probe_kind credits_changed{"credits", "a VL's transmit credit changed (frame sent, credit packet received)",
                           "credit available, 64-byte blocks"};
const credit_flow_control& fc_of(const void* m) { return stat_model<credit_flow_control>(m); }
const stat_desc port_stats[] = {
    {"packets_sent", "frames", "credit (flow-control) packets this port put on the wire",
     [](const void* m, int) { return static_cast<double>(fc_of(m).packets_sent()); }, stat_kind::counter},
    {"packets_received", "frames", "credit (flow-control) packets this port received",
     [](const void* m, int) { return static_cast<double>(fc_of(m).packets_received()); }, stat_kind::counter},
};
// Per VL, named under the port ("sw0.port3.prio3.credit_blocked_time") beside its queues.
const stat_desc vl_stats[] = {
    {"credit_blocked_time", "ns", "time a frame of this VL waited at this transmitter for credit",
     [](const void* m, int k) { return static_cast<double>(fc_of(m).blocked_ps(k, now_ps())) / 1e3; },
     stat_kind::counter},
    {"credit_blocked_periods", "periods", "times this VL's transmitter ran out of credit with a frame to send",
     [](const void* m, int k) { return static_cast<double>(fc_of(m).blocked_periods(k)); }, stat_kind::counter},
    {"credit_peak_blocks", "blocks", "most 64-byte blocks of this VL held in this port's input buffer",
     [](const void* m, int k) { return static_cast<double>(fc_of(m).peak_blocks(k)); }},
};
const param_spec<uint64_t> vls_spec{"vls", "operational data VLs of this port: VL0 .. VLn-1 (ConnectX: 8)", 8, 1, 15};
const param_spec<sc_core::sc_time> min_interval_spec{
    "min_interval",
    "least time between two credit packets of one VL (ib_model credMinTime: 4.096 us)",
    sc_core::sc_time(4096, sc_core::SC_NS),
    sc_core::SC_ZERO_TIME,
    sc_core::sc_time(1, sc_core::SC_MS),
    param_change::live};
const param_spec<sc_core::sc_time> refresh_spec{
    "refresh",
    "period of the unconditional credit packets of every VL (IBA: 65 536 symbol times at 1 ns)",
    sc_core::sc_time(65536, sc_core::SC_NS),
    sc_core::sc_time(1, sc_core::SC_NS),
    sc_core::sc_time(1, sc_core::SC_SEC),
    param_change::live};
const param_spec<uint64_t> sl2vl_spec{"sl2vl", "VL that frames of this SL (prio<k>) take out of this port", 0, 0, 15};
const param_spec<byte_count> batch_spec{
    "batch",
    "a changed limit waits until this much of the VL's buffer has been freed since its last credit packet "
    "(at most the whole buffer; 0: every change)",
    byte_count{8 * 1024},
    byte_count{0},
    byte_count{2048 * 64},
    param_change::live};
// The declared default; the fabric derives each port's from its link (derive_buffer_default):
// 64 KiB up to ~80 Gb/s at 1 us, more above, at most the 2048-block cap.
constexpr uint64_t buffer_floor_bytes = 64 * 1024, buffer_cap_bytes = 2048 * ib::credit_block;
const param_spec<byte_count> buffer_spec{
    "buffer",
    "input buffer of this VL behind the port's receiver, advertised as credit (0: the VL has none; default: "
    "what the link's credit loop needs at line rate, at least 64 KiB)",
    byte_count{buffer_floor_bytes}, byte_count{0}, byte_count{buffer_cap_bytes}};
const param_spec<byte_count> pool_spec{
    "pool",
    "shared input buffer of this port that its data VLs may be advertised beyond their own buffers while it has "
    "room (0: none)",
    byte_count{0}, byte_count{0}, byte_count{16u << 20}};

// A receiver that consumes at once: admit then release every frame.
struct consuming : frame_sink_if {
  credit_flow_control& fc;
  frame_sink_if& next;
  consuming(credit_flow_control& f, frame_sink_if& n) : fc(f), next(n) {}
  void receive_frame(tlm::tlm_generic_payload* frame, int port_index) override {
    const packet_header& h = header(*frame);
    fc.on_admit(h.priority, h.size, false);
    fc.on_release(h.priority, h.size, false);
    next.receive_frame(frame, port_index);
  }
};
}  // namespace

credit_flow_control::credit_flow_control(sc_core::sc_module_name name, mac_port& mac, int classes)
    : sc_module(name),
      vls(this, vls_spec),
      min_interval(this, min_interval_spec),
      refresh(this, refresh_spec),
      batch(this, batch_spec),
      pool(this, pool_spec),
      mac_(mac),
      classes_(classes) {
  if (classes < 1 || classes > max_classes)
    throw config_error(std::string(this->name()) + ": a credit port has 1 to 16 VLs, not " + std::to_string(classes));
  for (int k = 0; k < std::min(classes, management_vl); ++k) {
    buffer.push_back(std::make_unique<param<byte_count>>(this, buffer_spec, k));
    // The buffer of a VL the port does not operate is never advertised.
    buffer.back()->inert_when(
        [](const void* fc, const param_base& p) -> std::string {
          const credit_flow_control& c = *static_cast<const credit_flow_control*>(fc);
          return p.cls() < static_cast<int>(c.vls()) ? ""
                                                     : "VL " + std::to_string(p.cls()) + " is not operational (" +
                                                           c.vls.name() + " = " + std::to_string(c.vls()) + ")";
        },
        this);
  }
  for (int sl = 0; sl < max_classes; ++sl)  // identity by default (SL k on VL k)
    sl2vl.push_back(std::make_unique<param<uint64_t>>(this, sl2vl_spec, static_cast<uint64_t>(sl), sl));
  add_stats(*this, port_stats, this);
  const sc_core::sc_object& port = get_parent_object() ? *get_parent_object() : *this;
  add_stats(port, vl_stats, this, classes_);
  probe_registry::instance().declare(probes::credit_starved, this, this);
  probe_registry::instance().declare(probes::credit_resumed, this, this);
  probe_registry::instance().declare(credits_changed, this, this);
}

// Link-up: every operational VL advertises its whole buffer (the FC-init exchange) at time 0.
void credit_flow_control::start_of_simulation() {
  for (int k = 0; k < static_cast<int>(buffer.size()); ++k)
    vl_[k].capacity_blocks = has_vl(k) ? static_cast<uint32_t>((*buffer[k])().bytes / ib::credit_block) : 0;
  ready_ = active_mask();
  next_refresh_ps_ = to_ps(refresh());
  arm(0);
}

bool credit_flow_control::has_vl(int vl) const {
  if (vl == management_vl) return true;
  return vl >= 0 && vl < static_cast<int>(vls()) && vl < static_cast<int>(buffer.size()) && (*buffer[vl])().bytes > 0;
}

uint32_t credit_flow_control::active_mask() const {
  uint32_t m = 0;
  for (int k = 0; k < static_cast<int>(buffer.size()); ++k)
    if (vl_[k].capacity_blocks) m |= 1u << k;
  return m;
}

uint16_t credit_flow_control::advertised(int vl) const {
  const vl_state& s = vl_[vl];
  const uint32_t free_blocks = s.capacity_blocks - std::min(s.capacity_blocks, s.used_blocks);
  return static_cast<uint16_t>((s.abr + std::min<uint32_t>(free_blocks, 2048)) & 0xFFF);
}

bool credit_flow_control::may_send(int vl, uint32_t bytes, uint64_t) const {
  if (vl == management_vl) return true;
  const vl_state& s = vl_[vl];
  return ib::credit_allows(s.fccl, s.fctbs, blocks(bytes));
}

void credit_flow_control::on_waiting(int vl, uint32_t bytes) {
  if (vl == management_vl) return;
  vl_state& s = vl_[vl];
  const uint32_t n = blocks(bytes);
  if (ib::credit_allows(s.fccl, s.fctbs, n)) return;  // not refused for credit
  if (!s.blocked) {
    s.blocked = true;
    s.blocked_since_ps = now_ps();
    ++s.blocked_periods;
    s.wanted_blocks = n;
    if (probes::credit_starved.on()) probes::credit_starved.emit(this, now_ps(), nullptr, mac_.index(), vl, bytes);
  } else {
    s.wanted_blocks = std::min(s.wanted_blocks, n);  // credit for the smallest waiting frame ends it
  }
}

void credit_flow_control::end_blocked(vl_state& s, uint64_t now_ps) {
  if (now_ps < s.blocked_since_ps)
    invariant_failed(name(), static_cast<int>(&s - vl_.data()),
                     "credit starvation ends before it began (since " + format_time(from_ps(s.blocked_since_ps)) + ")");
  s.blocked = false;
  s.blocked_total_ps += now_ps - s.blocked_since_ps;
  s.off_end_ps = now_ps;
  if (probes::credit_resumed.on())
    probes::credit_resumed.emit(this, now_ps, nullptr, mac_.index(), static_cast<int>(&s - vl_.data()),
                                now_ps - s.blocked_since_ps);
}

uint64_t credit_flow_control::off_end_ps(int vl, uint64_t now_ps) const {
  if (vl == management_vl) return 0;
  const vl_state& s = vl_[vl];
  return s.blocked ? now_ps : std::min(now_ps, s.off_end_ps);
}

// The ON-OFF model's loop for credits. OFF begins the moment credit runs out (the sender stops
// itself: no overshoot); the receiver returns credit once `batch` bytes are free (one block when
// batch is 0; never more than the buffer), so that is its OFF/ON gap; tau is from a release at the receiver to its
// effect on what arrives there: the wait for the VL's next update (at most min_interval), the credit packet on the
// reverse wire (serialization + delay), and the data's delay forward. Taken from this port's own parameters (the peer's
// min_interval is assumed equal, as PFC assumes uniform xon_offset).
flow_control_if::on_off_loop credit_flow_control::on_off(int vl) const {
  if (vl == management_vl) return {};
  const data_rate rate = mac_.wire().current_rate();
  const uint64_t tau =
      to_ps(min_interval()) + 2 * to_ps(mac_.wire().propagation()) + to_ps(rate.serialization(ib::credit_packet_bytes));
  const uint64_t capacity = uint64_t{vl_[vl].capacity_blocks} * ib::credit_block;
  const uint64_t gap = std::max<uint64_t>(ib::credit_block, std::min<uint64_t>(batch().bytes, capacity));
  return {gap, tau, rate.bps};
}

double credit_flow_control::credit_loop_s(uint64_t max_frame_bytes) const {
  const data_rate rate = mac_.wire().current_rate();
  const double interval_s = std::max(sc_core::sc_time(min_interval()).to_seconds(), batch().bytes * 8.0 / rate.bps);
  return rate.serialization(max_frame_bytes).to_seconds() + 2 * mac_.wire().propagation().to_seconds() + interval_s +
         rate.serialization(ib::credit_packet_bytes).to_seconds();
}

uint64_t credit_flow_control::line_rate_buffer_bytes(uint64_t max_frame_bytes) const {
  const double frames = mac_.wire().current_rate().bps * credit_loop_s(max_frame_bytes) / 8.0 / max_frame_bytes;
  return (static_cast<uint64_t>(std::ceil(frames)) + 1) * blocks(static_cast<uint32_t>(max_frame_bytes)) *
         ib::credit_block;
}

double credit_flow_control::credit_loop_rate_bps(uint64_t buffer_bytes, uint64_t max_frame_bytes) const {
  const uint64_t frames = buffer_bytes / (uint64_t{blocks(static_cast<uint32_t>(max_frame_bytes))} * ib::credit_block);
  const double rate = static_cast<double>(frames * max_frame_bytes) * 8.0 / credit_loop_s(max_frame_bytes);
  return std::min(rate, mac_.wire().current_rate().bps);
}

void credit_flow_control::derive_buffer_default(uint64_t max_frame_bytes) {
  const uint64_t need = line_rate_buffer_bytes(max_frame_bytes);
  const byte_count b{std::min(std::max(need, buffer_floor_bytes), buffer_cap_bytes)};
  for (auto& p : buffer) p->set_default(b);  // a value set explicitly (0: no VL) stays
}

void credit_flow_control::on_transmit(int vl, uint32_t bytes) {
  if (vl == management_vl) return;
  vl_state& s = vl_[vl];
  if (s.blocked) end_blocked(s, now_ps());  // a smaller frame fitted
  s.fctbs = static_cast<uint16_t>((s.fctbs + blocks(bytes)) & 0xFFF);
  if (available_blocks(vl) > 2048)
    invariant_failed(name(), vl,
                     "credits negative: a frame of " + std::to_string(blocks(bytes)) +
                         " blocks was sent beyond the limit (FCCL " + std::to_string(s.fccl) + ")");
  if (credits_changed.on()) credits_changed.emit(this, now_ps(), nullptr, mac_.index(), vl, available_blocks(vl));
}

uint32_t credit_flow_control::committed_blocks(int vl) const {
  const vl_state& s = vl_[vl];
  return s.used_blocks + ((s.adv_fccl - s.abr) & 0xFFF);
}

uint32_t credit_flow_control::pool_blocks_used() const {
  uint32_t used = 0;
  for (int k = 0; k < static_cast<int>(buffer.size()); ++k)
    used += committed_blocks(k) - std::min(committed_blocks(k), vl_[k].capacity_blocks);
  return used;
}

// Commitments only shrink between a VL's credit packets (a frame landing turns credit into use,
// a release frees both), so granting each packet at most the pool's free blocks keeps the sum of
// every VL's use within the buffers and the pool: nothing can arrive that does not fit. A limit
// never falls (frames sent against it may be on the wire). Only a VL in use (frames held, or
// credit spent since its last packet) is granted pool blocks, so idle VLs (and link-up) do not
// hoard it.
uint16_t credit_flow_control::advertise(int vl) {
  const uint64_t pool_total = pool().bytes / ib::credit_block;
  vl_state& s = vl_[vl];
  if (pool_total == 0) return s.adv_fccl = advertised(vl);
  const uint32_t committed = committed_blocks(vl), outstanding = committed - s.used_blocks;
  const uint32_t own_pool = committed - std::min(committed, s.capacity_blocks);
  const uint64_t pool_free = pool_total - std::min<uint64_t>(pool_total, pool_blocks_used() - own_pool);
  const bool in_use = s.peak_blocks > 0 && (s.used_blocks > 0 || outstanding < s.capacity_blocks);
  const uint64_t room = s.capacity_blocks + (in_use ? pool_free : own_pool);
  const uint64_t free_blocks = room - std::min<uint64_t>(room, s.used_blocks);
  s.adv_fccl = static_cast<uint16_t>((s.abr + std::min<uint64_t>(free_blocks, 2048)) & 0xFFF);
  return s.adv_fccl;
}

void credit_flow_control::on_admit(int vl, uint32_t bytes, bool) {
  if (vl == management_vl) return;
  vl_state& s = vl_[vl];
  const uint32_t n = blocks(bytes);
  if (pool().bytes >= ib::credit_block ? n > ((s.adv_fccl - s.abr) & 0xFFF) : s.used_blocks + n > s.capacity_blocks)
    SC_REPORT_ERROR(name(), "model error: a frame arrived beyond the credit this port advertised");
  s.used_blocks += n;
  s.peak_blocks = std::max(s.peak_blocks, s.used_blocks);
  s.abr = static_cast<uint16_t>((s.abr + n) & 0xFFF);
}

void credit_flow_control::on_release(int vl, uint32_t bytes, bool) {
  if (bytes == 0 || vl == management_vl) return;  // a PFC-style resume: nothing to return
  vl_state& s = vl_[vl];
  const uint32_t n = blocks(bytes);
  s.used_blocks -= std::min(s.used_blocks, n);
  s.freed_blocks += n;
  // Batched: a sender short of credit waits at most for a batch to free, and the whole buffer
  // freeing always qualifies, so nothing waits for ever.
  const uint64_t batch_blocks = std::min<uint64_t>(batch().bytes / ib::credit_block, s.capacity_blocks);
  // A buffer that drained while its sender lacks credit for a frame like this one also qualifies:
  // a buffer smaller than batch + a frame would otherwise wait for the refresh.
  const bool drained_short = s.used_blocks == 0 && ((s.adv_fccl - s.abr) & 0xFFF) < n;
  if (s.freed_blocks >= batch_blocks || drained_short) request_update(vl);
}

// A changed limit goes out at once, or when the VL's minimum interval has passed.
void credit_flow_control::request_update(int vl) {
  const uint32_t bit = 1u << vl;
  if ((ready_ | dirty_) & bit) return;  // already waiting: it will carry the newest limit
  const vl_state& s = vl_[vl];
  const uint64_t due = s.sent_once ? s.last_sent_ps + to_ps(min_interval()) : 0;
  const uint64_t now = now_ps();
  if (due <= now) {
    ready_ |= bit;
    mac_.kick();
  } else {
    dirty_ |= bit;
    arm(due);
  }
}

void credit_flow_control::arm(uint64_t at_ps) { event_queue::instance().schedule(this, at_ps); }

void credit_flow_control::on_timer() {
  const uint64_t now = now_ps();
  if (now >= next_refresh_ps_) {
    ready_ |= active_mask();
    dirty_ &= ~ready_;
    next_refresh_ps_ = now + to_ps(refresh());
  }
  uint64_t next = next_refresh_ps_;
  const uint64_t gap = to_ps(min_interval());
  for (uint32_t m = dirty_; m; m &= m - 1) {
    const int vl = __builtin_ctz(m);
    const uint64_t due = vl_[vl].last_sent_ps + gap;
    if (due <= now) {
      dirty_ &= ~(1u << vl);
      ready_ |= 1u << vl;
    } else {
      next = std::min(next, due);
    }
  }
  arm(next);
  if (ready_) mac_.kick();
}

tlm::tlm_generic_payload* credit_flow_control::take_control_frame(uint64_t now_ps) {
  if (!ready_) return nullptr;
  const int vl = __builtin_ctz(ready_);
  ready_ &= ready_ - 1;
  vl_state& s = vl_[vl];
  s.last_sent_ps = now_ps;
  s.freed_blocks = 0;
  const bool init = !s.sent_once;
  s.sent_once = true;
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire(true);
  packet_header& h = header(*p);
  h.kind = frame_kind::ib_credit;
  h.priority = static_cast<uint8_t>(vl);
  h.size = ib::credit_packet_bytes;
  h.created_ps = now_ps;
  ib::encode_credit({static_cast<uint8_t>(init ? 1 : 0), s.fctbs, static_cast<uint8_t>(vl), advertise(vl)}, *h.image);
  ++packets_sent_;
  return p;
}

void credit_flow_control::on_control_frame(tlm::tlm_generic_payload& frame) {
  const packet_header& h = header(frame);
  ib::credit_packet c;
  if (h.kind != frame_kind::ib_credit || !h.image || !ib::decode_credit(*h.image, c)) return;
  ++packets_received_;
  vl_state& s = vl_[c.vl];
  s.abr = c.fctbs;  // the peer's count of blocks sent: corrects for anything lost on the way
  s.fccl = c.fccl;
  if (credits_changed.on()) credits_changed.emit(this, now_ps(), nullptr, mac_.index(), c.vl, available_blocks(c.vl));
  if (s.blocked && ib::credit_allows(s.fccl, s.fctbs, s.wanted_blocks)) end_blocked(s, now_ps());
  mac_.kick();  // the gate may have opened
}

frame_sink_if& credit_flow_control::consuming_sink(frame_sink_if& next) {
  sink_ = std::make_unique<consuming>(*this, next);
  return *sink_;
}

}  // namespace sluice
