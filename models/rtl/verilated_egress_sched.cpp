// The transaction wrapper around the Verilated egress scheduler (--cc): clocked inside call(),
// one rising edge at a time, until the block raises valid. Verilator's headers come first, before
// anything that includes <systemc> (docs/rtl.md, pitfalls).
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <deque>
#include <fstream>
#include <stdexcept>

#include "Vegress_sched.h"
#include "Vegress_sched_mutant.h"
#include "Vegress_sched_traced.h"
#include "models/rtl/sched_block.h"

namespace sluice {
namespace {

// A VCD kept in memory as its header and the last segments, each beginning with a full dump
// (VerilatedVcdC::openNext starts one), so that the window is a valid VCD on its own.
class vcd_window_file final : public VerilatedVcdFile {
 public:
  bool open(const std::string&) override {
    if (opened_) segments_.emplace_back();
    if (segments_.size() > 3) segments_.pop_front();
    opened_ = true;
    return true;
  }
  void close() override {}
  ssize_t write(const char* data, ssize_t n) override {
    (segments_.empty() ? header_ : segments_.back()).append(data, static_cast<std::size_t>(n));
    return n;
  }
  void header_done() { segments_.emplace_back(); }
  bool save(const std::string& path) const {
    std::ofstream out(path, std::ios::binary);
    out << header_;
    for (const std::string& s : segments_) out << s;
    return static_cast<bool>(out);
  }

 private:
  bool opened_ = false;
  std::string header_;
  std::deque<std::string> segments_;
};

template <class Model, bool Traced>
class verilated_sched final : public sched_block {
 public:
  verilated_sched() : context_(std::make_unique<VerilatedContext>()) {
    context_->traceEverOn(Traced);
    model_ = std::make_unique<Model>(context_.get(), "sched");
    // Reset: two edges with rst high; the outputs must be known (valid low) afterwards.
    model_->rst = 1;
    edge();
    edge();
    model_->rst = 0;
    if (model_->valid) throw std::logic_error("rtl: egress scheduler: valid is high after reset");
  }
  ~verilated_sched() override {
    if (vcd_) vcd_->close();
    model_->final();
  }

  void configure(const sched_block_config& c) override {
    model_->strict_mask = static_cast<uint16_t>(c.strict_mask);
    for (int q = 0; q < max_classes; ++q) model_->weight[q] = c.weight[q] & sched_widths::mask(sched_widths::weight);
    model_->quantum = c.quantum & sched_widths::mask(sched_widths::quantum);
  }

  sched_answer call(const sched_request& r, uint64_t t_ps) override {
    // valid is held until taken: the previous answer must still be there.
    if (taken_pending_ && !model_->valid) throw std::logic_error("rtl: egress scheduler dropped valid before take");
    for (int q = 0; q < max_classes; ++q) model_->head_bytes[q] = static_cast<uint16_t>(r.head[q]);
    model_->eligible = static_cast<uint16_t>(r.eligible);
    model_->start = 1;
    model_->take = taken_pending_;
    t_ps_ = t_ps + period_ps_;  // the first edge one period after the request
    uint32_t cycles = 0;
    do {
      if (++cycles > sched_max_cycles)
        throw std::logic_error("rtl: egress scheduler gave no answer within " + std::to_string(sched_max_cycles) +
                               " cycles");
      edge();
      model_->start = 0;
      model_->take = 0;
    } while (!model_->valid);
    taken_pending_ = true;  // taken with the next request's first edge
    return {model_->chosen ? static_cast<int>(model_->served) : -1, cycles};
  }

  bool trace_to(const std::string& path, uint64_t period_ps) override {
    if constexpr (!Traced) {
      return false;
    } else {
      period_ps_ = std::max<uint64_t>(2, period_ps);
      vcd_ = std::make_unique<VerilatedVcdC>();
      model_->trace(vcd_.get(), 99);
      vcd_->open(path.c_str());
      return vcd_->isOpen();
    }
  }
  // The window: up to three segments of cycles/2 edges (between one and one and a half windows).
  bool trace_window(uint32_t cycles, uint64_t period_ps) override {
    if constexpr (!Traced) {
      return false;
    } else {
      period_ps_ = std::max<uint64_t>(2, period_ps);
      window_cycles_ = std::max<uint32_t>(1, cycles / 2);
      window_ = std::make_unique<vcd_window_file>();
      vcd_ = std::make_unique<VerilatedVcdC>(window_.get());
      model_->trace(vcd_.get(), 99);
      vcd_->open("window");
      vcd_->flush();
      window_->header_done();
      return true;
    }
  }
  bool dump_window(const std::string& path) override {
    if (!window_) return false;
    vcd_->flush();
    return window_->save(path);
  }

 private:
  // One rising edge (and the falling one after it, so the next call's edge is seen as rising).
  void edge() {
    model_->clk = 1;
    model_->eval();
    if (Traced && vcd_) dump_rising();
    model_->clk = 0;
    model_->eval();
    if (Traced && vcd_) vcd_->dump(last_dump_ps_ + period_ps_ / 2);
  }
  // Waveforms in picoseconds on the model's time line: cycle edges at the request's time plus
  // whole periods, never going back (two requests at one model time follow each other).
  void dump_rising() {
    const uint64_t t = std::max(t_ps_, last_dump_ps_ + period_ps_);
    last_dump_ps_ = t_ps_ = t;
    if (window_ && ++window_count_ >= window_cycles_) {
      window_count_ = 0;
      vcd_->openNext(false);
    }
    vcd_->dump(t);
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
  bool taken_pending_ = false;
  std::unique_ptr<vcd_window_file> window_;  // declared before vcd_, which writes to it
  std::unique_ptr<VerilatedVcdC> vcd_;
  uint32_t window_cycles_ = 0, window_count_ = 0;
  uint64_t t_ps_ = 0, last_dump_ps_ = 0, period_ps_ = 1;
};

}  // namespace

std::unique_ptr<sched_block> make_verilated_egress_sched(sched_rtl_build build) {
  switch (build) {
    case sched_rtl_build::traced:
      return std::make_unique<verilated_sched<Vegress_sched_traced, true>>();
    case sched_rtl_build::mutant:
      return std::make_unique<verilated_sched<Vegress_sched_mutant, true>>();
    case sched_rtl_build::fast:
      break;
  }
  return std::make_unique<verilated_sched<Vegress_sched, false>>();
}

}  // namespace sluice
