// What every transaction wrapper of a Verilated --cc block shares: the model in its own
// VerilatedContext, clocked one rising edge at a time from inside a call (no free-running clock),
// and its waveforms, whole-run or a window of the last cycles kept in memory. Includes Verilator's
// headers: include it only from a wrapper's .cpp, first (docs/rtl.md, pitfalls).
#pragma once
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

namespace sluice {

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

// The Verilated model `Model` (with `clk` and `rst` ports), reset at construction; Traced: built
// with --trace.
template <class Model, bool Traced>
class clocked_model {
 public:
  explicit clocked_model(const char* name) : context_(std::make_unique<VerilatedContext>()) {
    context_->traceEverOn(Traced);
    model_ = std::make_unique<Model>(context_.get(), name);
    model_->rst = 1;  // reset: two edges with rst high
    edge();
    edge();
    model_->rst = 0;
  }
  ~clocked_model() {
    if (vcd_) vcd_->close();
    model_->final();
  }
  Model& model() { return *model_; }

  // A request's first edge comes one period after `t_ps` (waveform time stamps only).
  void request_at(uint64_t t_ps) { t_ps_ = t_ps + period_ps_; }
  // One rising edge (and the falling one after it, so the next edge is seen as rising).
  void edge() {
    model_->clk = 1;
    model_->eval();
    if (Traced && vcd_) dump_rising();
    model_->clk = 0;
    model_->eval();
    if (Traced && vcd_) vcd_->dump(last_dump_ps_ + period_ps_ / 2);
  }

  bool trace_to(const std::string& path, uint64_t period_ps) {
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
  bool trace_window(uint32_t cycles, uint64_t period_ps) {
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
  bool dump_window(const std::string& path) {
    if (!window_) return false;
    vcd_->flush();
    return window_->save(path);
  }

 private:
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
  std::unique_ptr<vcd_window_file> window_;  // declared before vcd_, which writes to it
  std::unique_ptr<VerilatedVcdC> vcd_;
  uint32_t window_cycles_ = 0, window_count_ = 0;
  uint64_t t_ps_ = 0, last_dump_ps_ = 0, period_ps_ = 1;
};

// A transaction wrapper's common part: the block interface `Interface` (sched_block, rp_block)
// over the Verilated `Model`, whose handshake ports are start, take and valid.
template <class Interface, class Model, bool Traced>
class clocked_block : public Interface {
 public:
  explicit clocked_block(const char* name, std::string what) : clocked_(name), what_(std::move(what)) {
    if (model().valid) throw std::logic_error("rtl: " + what_ + ": valid is high after reset");
  }
  bool trace_to(const std::string& path, uint64_t period_ps) override { return clocked_.trace_to(path, period_ps); }
  bool trace_window(uint32_t cycles, uint64_t period_ps) override { return clocked_.trace_window(cycles, period_ps); }
  bool dump_window(const std::string& path) override { return clocked_.dump_window(path); }

 protected:
  Model& model() { return clocked_.model(); }
  // One request, its inputs already driven: start (taking the previous answer) and clock until
  // valid, at most `max_cycles` edges. Returns the edges. The interface assertions: the previous
  // answer held until taken, an answer within max_cycles.
  uint32_t transact(uint64_t t_ps, uint32_t max_cycles) {
    Model& m = model();
    if (taken_pending_ && !m.valid) throw std::logic_error("rtl: " + what_ + " dropped valid before take");
    m.start = 1;
    m.take = taken_pending_;
    clocked_.request_at(t_ps);
    uint32_t cycles = 0;
    do {
      if (++cycles > max_cycles)
        throw std::logic_error("rtl: " + what_ + " gave no answer within " + std::to_string(max_cycles) + " cycles");
      clocked_.edge();
      m.start = 0;
      m.take = 0;
    } while (!m.valid);
    taken_pending_ = true;  // taken with the next request's first edge
    return cycles;
  }

 private:
  clocked_model<Model, Traced> clocked_;
  std::string what_;
  bool taken_pending_ = false;
};

}  // namespace sluice
