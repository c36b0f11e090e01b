#include "models/switch/switch_port.h"

#include <algorithm>

#include "models/core/stats.h"
#include "models/link/link.h"

namespace sluice {

switch_port::switch_port(sc_core::sc_module_name name, int index, uint64_t mac_address, sc_core::sc_port<mmu_if>& mmu,
                         const std::vector<std::unique_ptr<switch_port>>* siblings)
    : sc_module(name),
      mac("mac", index, mac_address, std::string(this->name())),
      quantum(std::string(this->name()) + ".dwrr.quantum", byte_count{1500}, "DWRR bytes per unit of weight per round",
              byte_count{64}, byte_count{1 << 24}),
      pfc_quanta(std::string(this->name()) + ".pfc.quanta", 0xFFFF,
                 "pause time in XOFF frames, in quanta of 512 bit times", 1, 0xFFFF),
      pfc_refresh(std::string(this->name()) + ".pfc.refresh", 0.5,
                  "re-send XOFF after this fraction of the pause time while still congested", 0.01, 1.0),
      mmu_(mmu),
      siblings_(siblings) {
  const std::string base = this->name();
  for (int i = 0; i < num_priorities; ++i) {
    std::string prio = base + ".prio" + std::to_string(i);
    sched[i] = std::make_unique<choice_param>(prio + ".sched", "dwrr", "egress discipline of this priority queue",
                                              std::vector<std::string>{"strict", "dwrr"});
    weight[i] = std::make_unique<param<uint64_t>>(prio + ".weight", 1, "DWRR weight", 1, 1000000);
  }
  mac.attach(this, nullptr);
  for (int i = 0; i < num_priorities; ++i) {
    const std::string prio = base + ".prio" + std::to_string(i);
    const queue_stats& q = stats_[i];
    add_stat(prio, "queue_bytes", "bytes", "egress queue depth now (frames in the pipeline included)",
             [&q] { return static_cast<double>(q.bytes); });
    add_stat(prio, "queue_max_bytes", "bytes", "largest egress queue depth",
             [&q] { return static_cast<double>(q.max_bytes); });
    add_stat(prio, "queue_mean_bytes", "bytes", "time-averaged egress queue depth",
             [&q] { return q.mean_bytes(to_ps(sc_core::sc_time_stamp())); });
    add_stat(prio, "frames_out", "frames", "frames dequeued for transmission",
             [&q] { return static_cast<double>(q.frames_out); });
    add_stat(prio, "bytes_out", "bytes", "wire bytes dequeued for transmission",
             [&q] { return static_cast<double>(q.bytes_out); });
    add_stat(prio, "pause_sent", "frames", "XOFF frames sent upstream for this ingress priority group (refreshes too)",
             [this, i] { return static_cast<double>(xoff_sent_[i]); });
    add_stat(prio, "resume_sent", "frames", "XON frames sent upstream for this ingress priority group",
             [this, i] { return static_cast<double>(xon_sent_[i]); });
    add_stat(prio, "drops", "frames", "frames dropped at ingress (MMU refusal or no route)",
             [this, i] { return static_cast<double>(drops_[i]); });
    add_stat(prio, "ingress_peak_bytes", "bytes", "largest priority-group occupancy (reserve + shared + headroom)",
             [this, i] { return static_cast<double>(mmu_->usage(mac.index(), i).peak_total); });
    add_stat(prio, "headroom_peak_bytes", "bytes", "largest headroom use of the priority group",
             [this, i] { return static_cast<double>(mmu_->usage(mac.index(), i).peak_headroom); });
  }
}

void switch_port::start_of_simulation() {
  scheduler_config c;
  for (int i = 0; i < num_priorities; ++i) {
    c.strict[i] = (*sched[i])() == "strict";
    c.weight[i] = static_cast<uint32_t>((*weight[i])());
  }
  c.quantum = static_cast<uint32_t>(quantum().bytes);
  default_scheduler_ = std::make_unique<egress_scheduler>(c);
  scheduler_ = custom_scheduler_ ? custom_scheduler_ : default_scheduler_.get();
}

void switch_port::enqueue(tlm::tlm_generic_payload* p) {
  packet_header& h = header(*p);
  uint64_t now = to_ps(sc_core::sc_time_stamp());
  queue_stats& s = stats_[h.priority];
  s.update(now);
  s.bytes += h.size;
  ++s.frames;
  s.max_bytes = std::max(s.max_bytes, s.bytes);
  queues_[h.priority].push_back({p, h.size, h.ready_ps});
  mac.kick();
}

tlm::tlm_generic_payload* switch_port::next_frame(const mac_port& port, uint64_t now_ps, uint64_t& retry_ps) {
  std::array<uint32_t, num_priorities> head{};
  uint32_t eligible = 0;
  for (int q = 0; q < num_priorities; ++q) {
    if (queues_[q].empty()) continue;
    const queued& h = queues_[q].front();
    head[q] = h.size;
    if (port.paused(q, now_ps))
      retry_ps = std::min(retry_ps, port.pause_end_ps(q));
    else if (h.ready_ps > now_ps)
      retry_ps = std::min(retry_ps, h.ready_ps);  // still in the pipeline
    else
      eligible |= 1u << q;
  }
  if (!eligible) return nullptr;
  int q = scheduler_->select(head, eligible);
  if (q < 0 || !(eligible >> q & 1)) {
    // A replacement scheduler that declines (or names an ineligible queue) is asked again one
    // frame time later (the smallest eligible head at the link rate), or sooner on new input.
    if (q >= 0) SC_REPORT_WARNING(name(), "scheduler selected an ineligible queue; ignored");
    uint32_t smallest = UINT32_MAX;
    for (int i = 0; i < num_priorities; ++i)
      if (eligible >> i & 1) smallest = std::min(smallest, head[i]);
    const link* l = port.attached_link();
    retry_ps = std::min(
        retry_ps,
        now_ps + std::max<uint64_t>(1, to_ps((l ? l->current_rate() : data_rate{1e9}).serialization(smallest))));
    return nullptr;
  }
  tlm::tlm_generic_payload* p = queues_[q].pop_front().frame;
  packet_header& h = header(*p);
  queue_stats& s = stats_[q];
  s.update(now_ps);
  s.bytes -= h.size;
  --s.frames;
  ++s.frames_out;
  s.bytes_out += h.size;
  // The frame leaves the buffer as it starts on the wire.
  bool xon_due = false;
  mmu_->release(h.ingress_port, q, h.size, xon_due);
  if (xon_due) (*siblings_)[h.ingress_port]->resume_upstream(q);
  return p;
}

uint64_t switch_port::next_ready_ps(const mac_port& port, uint64_t now_ps) const {
  uint64_t next = never_ps;
  for (int q = 0; q < num_priorities; ++q) {
    if (queues_[q].empty()) continue;
    uint64_t t = port.paused(q, now_ps) ? port.pause_end_ps(q) : queues_[q].front().ready_ps;
    if (t <= now_ps) return now_ps;
    next = std::min(next, t);
  }
  return next;
}

sc_core::sc_time switch_port::pause_time() const {
  const link* l = mac.attached_link();
  return pause_duration(static_cast<uint16_t>(pfc_quanta()), l ? l->current_rate() : data_rate{1e9});
}

void switch_port::pause_upstream(int priority) {
  pfc_request r;
  r.class_enable = static_cast<uint8_t>(1u << priority);
  r.quanta[priority] = static_cast<uint16_t>(pfc_quanta());
  mac.send_pfc(r);
  ++xoff_sent_[priority];
  if (!refresh_pending_) {
    refresh_pending_ = true;
    schedule_refresh();
  }
}

void switch_port::resume_upstream(int priority) {
  pfc_request r;
  r.class_enable = static_cast<uint8_t>(1u << priority);
  r.quanta[priority] = 0;
  mac.send_pfc(r);
  ++xon_sent_[priority];
}

// Re-sends XOFF for every priority still paused, in one frame, before the pause expires.
void switch_port::refresh() {
  refresh_pending_ = false;
  pfc_request r;
  for (int i = 0; i < num_priorities; ++i) {
    if (!mmu_->pg_paused(mac.index(), i)) continue;
    if (mmu_->try_resume(mac.index(), i)) {  // no longer congested: resume instead of re-pausing
      resume_upstream(i);
      continue;
    }
    r.class_enable |= static_cast<uint8_t>(1u << i);
    r.quanta[i] = static_cast<uint16_t>(pfc_quanta());
    ++xoff_sent_[i];
  }
  if (!r.class_enable) return;
  mac.send_pfc(r);
  refresh_pending_ = true;
  schedule_refresh();
}

void switch_port::schedule_refresh() {
  // Never faster than the wire can carry PFC frames (a tiny pfc.quanta would otherwise spin).
  const link* l = mac.attached_link();
  sc_core::sc_time floor = (l ? l->current_rate() : data_rate{1e9}).serialization(pfc_frame_bytes);
  event_queue::instance().schedule(this,
                                   to_ps(sc_core::sc_time_stamp() + std::max(pause_time() * pfc_refresh(), floor)));
}

}  // namespace sluice
