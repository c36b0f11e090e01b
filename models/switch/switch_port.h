// One port of a switch: its MAC, its eight egress queues with their scheduler (the port's
// frame source), and the PFC generator that pauses the upstream neighbour on behalf of the
// MMU (XOFF, refresh before expiry, XON on drain).
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "models/core/ring.h"
#include "models/protocol/mac_port.h"
#include "models/switch/egress_scheduler.h"
#include "models/switch/switch_blocks.h"

namespace sluice {

struct queue_stats {
  uint64_t bytes = 0, frames = 0;  // current depth
  uint64_t max_bytes = 0;
  uint64_t frames_out = 0, bytes_out = 0;
  long double byte_ps = 0;  // integral of depth over time, for the mean
  uint64_t last_change_ps = 0;
  void update(uint64_t now_ps) {
    byte_ps += static_cast<long double>(bytes) * static_cast<long double>(now_ps - last_change_ps);
    last_change_ps = now_ps;
  }
  double mean_bytes(uint64_t now_ps) const {
    if (now_ps == 0) return 0;
    long double total = byte_ps + static_cast<long double>(bytes) * (now_ps - last_change_ps);
    return static_cast<double>(total / now_ps);
  }
};

class switch_port : public sc_core::sc_module, public frame_source_if, public timed_client {
 public:
  mac_port mac;
  std::array<std::unique_ptr<choice_param>, num_priorities> sched;
  std::array<std::unique_ptr<param<uint64_t>>, num_priorities> weight;
  param<byte_count> quantum;
  param<uint64_t> pfc_quanta;
  param<double> pfc_refresh;

  // siblings: all ports of the switch, to send XON upstream on a frame's ingress port.
  switch_port(sc_core::sc_module_name name, int index, uint64_t mac_address, sc_core::sc_port<mmu_if>& mmu,
              const std::vector<std::unique_ptr<switch_port>>* siblings);

  void enqueue(tlm::tlm_generic_payload* p);
  tlm::tlm_generic_payload* next_frame(const mac_port& port, uint64_t now_ps, uint64_t& retry_ps) override;
  uint64_t next_ready_ps(const mac_port& port, uint64_t now_ps) const override;

  // Called by the switch when the MMU decides this port's upstream must pause / may resume.
  void pause_upstream(int priority);
  void resume_upstream(int priority);

  // Replaces the default strict/DWRR scheduler (e.g. with an RTL adapter); call before sc_start.
  void bind_scheduler(scheduler_if& s) { custom_scheduler_ = &s; }

  const queue_stats& queue(int priority) const { return stats_[priority]; }
  uint64_t xoff_sent(int priority) const { return xoff_sent_[priority]; }
  uint64_t xon_sent(int priority) const { return xon_sent_[priority]; }
  uint64_t drops(int priority) const { return drops_[priority]; }
  void count_drop(int priority) { ++drops_[priority]; }

 private:
  void start_of_simulation() override;
  void on_timer() override { refresh(); }
  void refresh();
  void schedule_refresh();
  sc_core::sc_time pause_time() const;

  sc_core::sc_port<mmu_if>& mmu_;
  const std::vector<std::unique_ptr<switch_port>>* siblings_;
  // Size and ready time ride beside the pointer so scheduling never touches queued payloads
  // (thousands of them under congestion: their headers would be cache misses).
  struct queued {
    tlm::tlm_generic_payload* frame;
    uint32_t size;
    uint64_t ready_ps;
  };
  std::array<ring<queued>, num_priorities> queues_;
  std::array<queue_stats, num_priorities> stats_{};
  std::unique_ptr<egress_scheduler> default_scheduler_;
  scheduler_if* custom_scheduler_ = nullptr;
  scheduler_if* scheduler_ = nullptr;
  std::array<uint64_t, num_priorities> xoff_sent_{}, xon_sent_{}, drops_{};
  bool refresh_pending_ = false;
};

}  // namespace sluice
