// Congestion point "asm": ASM at one egress queue (port, priority). It samples on enqueue
// (asm_cp_state: a fixed, jittered byte interval, skipping sources with a feedback in flight) and
// sends the sampled frame's source an ASM CNM (asm_frame.h) carrying Qoff and Qdelta, 8 bits each,
// whatever their sign: the reaction point decides between decrease and increase. Through the
// switch's frame_injector_if, outside MMU accounting. Parameters <port>.prio<k>.asm.*, statistics
// <port>.prio<k>.asm.{samples,suppressed,sent,arrived_bytes}. See docs/models/asm.md.
#include <string>

#include "models/cc/asm/asm_cp_state.h"
#include "models/cc/asm/asm_frame.h"
#include "models/cc/asm/asm_settings.h"
#include "models/cc/congestion_point.h"
#include "models/core/event_queue.h"
#include "models/core/param_cache.h"
#include "models/core/stats.h"

namespace sluice {
namespace {
class asm_cp final : public congestion_point_if {
 public:
  asm_cp(const sc_core::sc_object& port, int cls, frame_injector_if& injector)
      : port_(&port),
        cls_(cls),
        scope_("prio" + std::to_string(cls) + ".asm"),
        injector_(injector),
        state_(random_streams::instance().seed_for(std::string(port.name()) + "." + scope_)) {
    config_.watch({&qeq_, &integral_gain_, &integral_limit_});
  }

  void on_enqueue(packet_header& h, const queue_view& q) override {
    const asm_cp_config& c = config_.get([this] {
      const asm_settings& g = asm_settings::get();
      return asm_cp_config{qeq_().bytes,
                           base_().bytes,
                           jitter_(),
                           g.qoff_quantum().bytes,
                           g.qdelta_quantum().bytes,
                           to_ps(hold_()),
                           integral_gain_(),
                           static_cast<double>(integral_limit_().bytes)};
    });
    const uint64_t now = now_ps();
    arrived_ += h.size;
    const asm_sample s = state_.on_arrival(h.size, q.bytes, h.src, now, c);
    samples_ += s.sampled;
    suppressed_ += s.suppressed;
    if (!s.send) return;
    ++sent_;
    injector_.inject(asm_cnm::make(h, q.port_mac, q.cls, s.qoff_field, s.qdelta_field, injector_.node_id(), now));
  }
  void on_dequeue(packet_header&, const queue_view&) override {}
  void check(uint64_t buffer_bytes) const override { check_within_buffer(qeq_, cls_, buffer_bytes); }

 private:
  const sc_core::sc_object* port_;  // first: what follows is declared under it, at class cls_
  int cls_;
  std::string scope_;  // "prio3.asm": the statistics' scope, kept for the registry
  frame_injector_if& injector_;
  asm_cp_state state_;
  param<byte_count> qeq_{port_,
                         [] {
                           return param_spec<byte_count>{"asm.qeq",
                                                         "asm: equilibrium queue depth Qeq (as qcn: 26 KiB)",
                                                         byte_count{26 * 1024},
                                                         byte_count{64},
                                                         byte_count{1ull << 30},
                                                         param_change::live};
                         },
                         cls_};
  param<byte_count> base_{port_,
                          [] {
                            return param_spec<byte_count>{"asm.sample_base",
                                                          "asm: bytes arrived between samples (as QCN's base: 150 KB)",
                                                          byte_count{150000}, byte_count{64}, byte_count{1ull << 32}};
                          },
                          cls_};
  param<double> jitter_{port_,
                        [] {
                          return param_spec<double>{
                              "asm.sample_jitter",
                              "asm: each sampling interval is drawn uniformly from (1 +/- this) x sample_base", 0.15,
                              0.0, 0.9};
                        },
                        cls_};
  param<sc_core::sc_time> hold_{
      port_,
      [] {
        return param_spec<sc_core::sc_time>{
            "asm.feedback_hold",
            "asm: a source is not sampled this long after a feedback to it (its feedback is in flight)",
            sc_core::sc_time(16, sc_core::SC_US), sc_core::sc_time(0, sc_core::SC_PS),
            sc_core::sc_time(1, sc_core::SC_SEC)};
      },
      cls_};
  param<double> integral_gain_{
      port_,
      [] {
        return param_spec<double>{"asm.integral_gain",
                                  "asm: part of each sample's Qoff added to the integral sent with Qoff (0: none), so "
                                  "the reaction points' active increase does not hold the queue above Qeq",
                                  0.03,
                                  0.0,
                                  1.0,
                                  param_change::live};
      },
      cls_};
  param<byte_count> integral_limit_{
      port_,
      [] {
        return param_spec<byte_count>{
            "asm.integral_limit",
            "asm: ceiling of the Qoff integral (it stays in [0, min(this, Qeq/2)]); samples with a "
            "larger |Qoff| do not feed it",
            byte_count{16 * 1024},
            byte_count{0},
            byte_count{1ull << 30},
            param_change::live};
      },
      cls_};
  // What every frame reads: packed at the first frame of the run, again after a live write (qeq,
  // the integral's gain and limit).
  param_cache<asm_cp_config> config_;
  stat_counter samples_{
      port_, scope_.c_str(), [] {
        return stat_desc{"samples", "frames", "data frames sampled by the asm congestion point", nullptr};
      }};
  stat_counter suppressed_{port_, scope_.c_str(), [] {
                             return stat_desc{"suppressed", "frames",
                                              "due samples skipped: the frame's source had a feedback in flight",
                                              nullptr};
                           }};
  stat_counter sent_{port_, scope_.c_str(), [] {
                       return stat_desc{"sent", "frames", "ASM CNMs sent (both fields 0: none)", nullptr};
                     }};
  stat_counter arrived_{port_, scope_.c_str(), [] {
                          return stat_desc{"arrived_bytes", "bytes",
                                           "bytes of data frames enqueued (the aggregate arrival, for the Q/R plane)",
                                           nullptr};
                        }};
};

const policy_registrar<cp_policies> reg{
    "asm", "ASM: sample on enqueue, Qoff and Qdelta (8 bits each) to the source, for decrease and increase",
    [](const sc_core::sc_object& port, int cls, frame_injector_if& injector) {
      return std::make_unique<asm_cp>(port, cls, injector);
    }};
}  // namespace
}  // namespace sluice
