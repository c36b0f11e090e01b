// The default MMU block: shared_buffer accounting with its parameters.
#pragma once
#include <memory>
#include <vector>

#include "models/core/event_queue.h"
#include "models/core/params.h"
#include "models/link/flow_control.h"
#include "models/switch/mmu_if.h"
#include "models/switch/shared_buffer.h"

namespace sluice {

// Live: a run-time write reaches `owner` (the MMU).
struct mmu_port_params {
  param<byte_count> reserve, xoff, xon_offset, headroom;
  // Named under the switch port ("sw0.port3.pfc.xoff").
  mmu_port_params(const sc_core::sc_object& port, param_listener* owner);
};

class mmu : public sc_core::sc_module, public mmu_if, private param_listener {
  // The accounting every admission and release goes to: declared first, in the cache line of
  // the interface's vtable pointer, not behind the parameters.
  std::unique_ptr<shared_buffer> state_;

 public:
  param<byte_count> buffer;
  choice_param threshold_mode;
  param<double> alpha, alpha_lossy;
  param<byte_count> cell;
  std::vector<std::unique_ptr<param<bool>>> lossless;  // per class
  std::vector<std::unique_ptr<mmu_port_params>> ports;

  // classes: the fabric's count; layer: the switch ports' (InfiniBand ports send no PFC). Ports
  // are added in index order during elaboration.
  mmu(sc_core::sc_module_name name, int classes, link_layer layer = link_layer::cee);
  void add_port(const sc_core::sc_object& port);

  bool admit(int port, int priority, uint32_t bytes, bool& xoff_due) override {
    const admit_outcome a = admit_at(port, priority, bytes, now_ps());
    xoff_due = a.xoff_due;
    return a.admitted;
  }
  void release(int port, int priority, uint32_t bytes) override { release_at(port, priority, bytes, now_ps()); }
  // The same, at the models' time `now` the caller has read: the switch's own path calls these
  // by name, so that no clock read (a kernel call outside a drain) makes it save registers.
  admit_outcome admit_at(int port, int priority, uint32_t bytes, uint64_t now) {
    account(now);
    return state_->admit(port, priority, bytes);
  }
  // admit_at in two halves (shared_buffer::admit_plain): the switch's own receive does the
  // accounting inline and leaves the rest, when there is any, to finish_admission out of line.
  [[gnu::always_inline]] admit_rest admit_plain_at(int port, int priority, uint32_t bytes, uint64_t now) {
    account(now);
    return state_->admit_plain(port, priority, bytes);
  }
  admit_outcome finish_admission(int port, int priority, uint32_t bytes, admit_rest rest) {
    return state_->finish_admission(port, priority, bytes, rest);
  }
  void release_at(int port, int priority, uint32_t bytes, uint64_t now) {
    account(now);
    state_->release(port, priority, bytes);
  }
  void set_listener(resume_listener* l) override { listener_ = l; }
  bool pg_paused(int port, int priority) const override { return state_->paused(port, priority); }
  bool try_resume(int port, int priority) override { return state_->try_resume(port, priority); }
  pg_usage usage(int port, int priority) const override {
    return state_ ? state_->usage(port, priority) : pg_usage{};  // empty before the simulation starts
  }
  bool is_lossless(int priority) const override { return (*lossless[priority])(); }
  uint64_t headroom_bytes(int port, int) const override { return ports[port]->headroom().bytes; }
  uint64_t xon_offset_bytes(int port, int) const override { return ports[port]->xon_offset().bytes; }
  // The shared pool, plus every port's reserve and, if the class is lossless, its headroom.
  uint64_t capacity_bytes(int priority) const override;
  int classes() const { return classes_; }
  // The buffer in use (every group's bytes), now, at its peak, and averaged over time up to `now`.
  uint64_t in_use_bytes() const { return state_ ? state_->in_use() : 0; }
  uint64_t peak_in_use_bytes() const { return state_ ? state_->peak_in_use() : 0; }
  uint64_t peak_shared_bytes() const { return state_ ? state_->peak_shared() : 0; }
  uint64_t shared_bytes() const { return state_ ? state_->shared_used() : 0; }
  double mean_in_use_bytes(uint64_t now) const;
  // Another MMU was bound in this one's place (switch_model::bind_mmu): its parameters are inert.
  void set_replaced() { replaced_ = true; }

 private:
  void start_of_simulation() override;
  void param_changed(const param_base&) override;
  // Adds the time since the last admission or release at the buffer's current use.
  // Exact in 128-bit integers (one multiply; a long double here cost 20 instructions per frame).
  void account(uint64_t now) {
    in_use_byte_ps_ += static_cast<unsigned __int128>(state_->in_use()) * (now - last_change_ps_);
    last_change_ps_ = now;
  }
  unsigned __int128 in_use_byte_ps_ = 0;
  uint64_t last_change_ps_ = 0;
  pg_config group_config(int port, int cls) const;
  // Why a parameter that reads the shared buffer's policy or PFC has no effect ("" if it has one).
  static std::string inert_reason(const void* mmu, const param_base& p);
  int classes_;
  link_layer layer_;
  bool replaced_ = false;
  resume_listener* listener_ = nullptr;
  std::unique_ptr<threshold_policy> threshold_;  // chosen by threshold_mode
};

}  // namespace sluice
