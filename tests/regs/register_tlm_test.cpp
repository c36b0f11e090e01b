// The register targets under the TLM-2.0 base protocol: a random initiator behind a protocol
// checker (base_protocol_checker.h) on a switch and on a NIC of the incast while it runs, with
// LT (b_transport) and AT (nb_transport_fw, both the updated and the accepted paths, and both
// ways of ending a response) transactions to mapped, unmapped and misaligned addresses, with bad
// lengths and byte enables. Zero checker errors; each response status as the map says; an LT
// read right after an AT read taken at once returns the same data. And the annotated timing:
// an access happens at sc_time_stamp() + delay and costs `regs.latency` clock cycles.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "platforms/timed_callbacks.h"
#include "tests/regs/base_protocol_checker.h"
#include "tests/regs/reg_port.h"
#include "tests/support/harness.h"

using namespace sluice;
using namespace sluice::regs;

namespace {

constexpr uint64_t us_ps = 1000000ull;

class random_initiator : public sc_core::sc_module, public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_initiator_socket<32> socket;
  uint64_t done = 0, mismatches = 0, compared = 0, at_updated = 0, at_accepted = 0, lt = 0;
  std::vector<std::string> notes;

  random_initiator(sc_core::sc_module_name name, register_target& target, uint64_t count, unsigned seed)
      : sc_module(name), socket("socket"), target_(target), count_(count), rng_(seed) {
    socket.bind(*this);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(random_initiator);

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_core::sc_time&) override {
    if (phase == tlm::END_REQ) {
      end_req_.notify();
      return tlm::TLM_ACCEPTED;
    }
    got_resp_ = true;
    resp_.notify();
    if (complete_at_once_) return tlm::TLM_COMPLETED;
    return tlm::TLM_ACCEPTED;  // END_RESP follows on the forward path
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  uint32_t pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

  // What the map says the answer should be.
  tlm::tlm_response_status expected(uint32_t address, bool is_write, bool bad_length, bool bad_enables) {
    if (bad_length) return tlm::TLM_BURST_ERROR_RESPONSE;
    if (bad_enables) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    reg_location w;
    if (!target_.bank().decode(address, w)) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (!is_write) return tlm::TLM_OK_RESPONSE;
    return tlm::TLM_OK_RESPONSE;  // a write's refusal (read-only, a missing parameter) is not predicted here
  }

  void run() {
    const std::vector<test::reg_ref> regs = test::every_register(target_, target_.device());
    const uint32_t top = regs.back().address + 0x1000;
    std::vector<unsigned char> data(8), enables(4);
    for (uint64_t i = 0; i < count_; ++i) {
      tlm::tlm_generic_payload t;
      const uint32_t kind = pick(100);
      const test::reg_ref& r = regs[pick(static_cast<uint32_t>(regs.size()))];
      uint32_t address = kind < 80 ? r.address : kind < 90 ? pick(top) & ~3u : r.address + 1 + pick(3);
      const bool bad_length = kind >= 95 && kind < 98, bad_enables = kind >= 98;
      // Writes: a register's own value back (parameters, rates: the model stays sane), random
      // bits to stored and flag registers; never the lock (it would refuse the rest).
      bool is_write = pick(10) < 3 && std::string(r.reg->name) != "LOCK" && kind < 80;
      uint32_t value = target_.bank().read(address, value, true) == reg_status::ok ? value : 0;
      if (is_write && r.reg->fields[0].kind == bind_kind::none && r.reg->fields[0].acc != regs::access::pulse)
        value = static_cast<uint32_t>(rng_());
      std::memcpy(data.data(), &value, 4);
      t.set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      t.set_address(address);
      t.set_data_ptr(data.data());
      t.set_data_length(bad_length ? 8 : 4);
      t.set_streaming_width(bad_length ? 8 : 4);
      if (bad_enables) {
        for (auto& e : enables) e = TLM_BYTE_ENABLED;
        enables[pick(4)] = TLM_BYTE_DISABLED;
        t.set_byte_enable_ptr(enables.data());
        t.set_byte_enable_length(4);
      }
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      const tlm::tlm_response_status want = expected(address, is_write, bad_length, bad_enables);
      sc_core::sc_time delay = pick(4) == 0 ? sc_core::SC_ZERO_TIME : sc_core::sc_time(pick(20), sc_core::SC_NS);
      const bool side_effects = r.reg->half || r.reg->fields[0].acc == regs::access::r2c;
      if (pick(2) == 0) {  // LT
        ++lt;
        socket->b_transport(t, delay);
        sc_core::wait(delay);
      } else {  // AT
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        complete_at_once_ = pick(2) == 0;
        got_resp_ = false;
        const tlm::tlm_sync_enum s = socket->nb_transport_fw(t, phase, delay);
        if (s == tlm::TLM_UPDATED) {
          ++at_updated;
          // Taken at once: an LT read now sees the same register at the same time.
          if (!is_write && !side_effects && t.get_response_status() == tlm::TLM_OK_RESPONSE) {
            uint32_t v = 0;
            tlm::tlm_generic_payload lt_read;
            test::set_access(lt_read, tlm::TLM_READ_COMMAND, address, &v);
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            socket->b_transport(lt_read, d);
            ++compared;
            uint32_t at_value;
            std::memcpy(&at_value, data.data(), 4);
            if (v != at_value) note("AT and LT reads differ at " + std::to_string(address));
          }
        } else if (s == tlm::TLM_ACCEPTED) {
          ++at_accepted;
          sc_core::wait(end_req_);
        }
        if (s != tlm::TLM_COMPLETED) {
          if (!got_resp_) sc_core::wait(resp_);
          if (!complete_at_once_) {
            tlm::tlm_phase end = tlm::END_RESP;
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            socket->nb_transport_fw(t, end, d);
          }
        }
      }
      if (t.get_response_status() != want && !(is_write && t.get_response_status() == tlm::TLM_COMMAND_ERROR_RESPONSE))
        note(std::string(is_write ? "write" : "read") + " of " + std::to_string(address) + " answered " +
             t.get_response_string() + ", the map says " + std::to_string(static_cast<int>(want)));
      ++done;
      if (pick(4) == 0) sc_core::wait(sc_core::sc_time(pick(40), sc_core::SC_NS));
    }
  }
  void note(const std::string& what) {
    ++mismatches;
    if (notes.size() < 10) notes.push_back(what);
  }

  register_target& target_;
  uint64_t count_;
  std::mt19937_64 rng_;
  sc_core::sc_event end_req_, resp_;
  bool complete_at_once_ = false, got_resp_ = false;
};

// The incast under DCQCN with static PFC thresholds, and `per_device` random transactions on
// sw0's and on h0's target.
void random_transactions(uint64_t per_device) {
  run_options o;
  o.cc = "dcqcn";
  o.sets = {{"sw0.mmu.threshold", "static"}};
  o.until = sc_core::sc_time(static_cast<double>(per_device) * 0.12, sc_core::SC_US);
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  std::vector<std::unique_ptr<random_initiator>> initiators;
  std::vector<std::unique_ptr<test::base_protocol_checker>> checkers;
  unsigned seed = 1;
  for (register_target* t : {&sim.fabric_model().switches[0]->registers, &sim.fabric_model().nics[0]->registers}) {
    checkers.push_back(std::make_unique<test::base_protocol_checker>(("checker" + std::to_string(seed)).c_str()));
    initiators.push_back(
        std::make_unique<random_initiator>(("initiator" + std::to_string(seed)).c_str(), *t, per_device, seed));
    initiators.back()->socket.bind(checkers.back()->from_initiator);
    checkers.back()->to_target.bind(t->socket);
    ++seed;
  }
  sim.run();
  for (std::size_t i = 0; i < initiators.size(); ++i) {
    SCOPED_TRACE(i == 0 ? "sw0" : "h0");
    const random_initiator& r = *initiators[i];
    EXPECT_EQ(r.done, per_device);
    EXPECT_EQ(checkers[i]->errors(), 0u);
    for (const std::string& m : checkers[i]->messages()) ADD_FAILURE() << m;
    EXPECT_EQ(r.mismatches, 0u);
    for (const std::string& m : r.notes) ADD_FAILURE() << m;
    EXPECT_GE(checkers[i]->transactions(), per_device);
    EXPECT_GT(r.compared, per_device / 50);
    EXPECT_GT(r.at_updated, per_device / 20);
    EXPECT_GT(r.at_accepted, per_device / 20);
    EXPECT_GT(r.lt, per_device / 4);
    std::printf("%s: %llu transactions (%llu LT, %llu AT updated, %llu AT accepted), %llu AT/LT compared\n",
                i == 0 ? "sw0" : "h0", static_cast<unsigned long long>(r.done), static_cast<unsigned long long>(r.lt),
                static_cast<unsigned long long>(r.at_updated), static_cast<unsigned long long>(r.at_accepted),
                static_cast<unsigned long long>(r.compared));
  }
}

}  // namespace

// 10^5 transactions, 5 x 10^4 per device kind (about 0.3 s).
TEST(RegisterTlm, AHundredThousandRandomTransactionsPassTheBaseProtocolChecker) { random_transactions(50000); }

namespace {
// A target that breaks the rules: TLM_UPDATED keeping BEGIN_REQ, b_transport without a status,
// DMI refused with the hint set, a debug answer longer than the data.
struct broken_target : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
  tlm::tlm_target_socket<32> socket;
  explicit broken_target(sc_core::sc_module_name n) : sc_module(n), socket("socket") { socket.bind(*this); }
  void b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) override {}
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_UPDATED;
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& t) override { return t.get_data_length() + 1; }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi&) override {
    t.set_dmi_allowed(true);
    return false;
  }
};
}  // namespace

TEST(RegisterTlm, TheCheckerCatchesABrokenTarget) {
  broken_target target("broken");
  test::base_protocol_checker checker("checker");
  struct bare_initiator : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
    tlm::tlm_initiator_socket<32> socket;
    explicit bare_initiator(sc_core::sc_module_name n) : sc_module(n), socket("socket") { socket.bind(*this); }
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
      return tlm::TLM_ACCEPTED;
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
  } initiator("initiator");
  tlm::tlm_initiator_socket<32>& port = initiator.socket;
  port.bind(checker.from_initiator);
  checker.to_target.bind(target.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint32_t v = 0;
  tlm::tlm_generic_payload t;
  test::set_access(t, tlm::TLM_READ_COMMAND, 0, &v);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  port->b_transport(t, d);
  EXPECT_EQ(checker.errors(), 1u);  // no response status
  tlm::tlm_generic_payload a;
  a.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  port->nb_transport_fw(a, phase, d);
  EXPECT_EQ(checker.errors(), 2u);  // TLM_UPDATED to BEGIN_REQ with phase BEGIN_REQ
  port->nb_transport_fw(a, phase, d);
  EXPECT_EQ(checker.errors(), 5u);  // again: in flight, its request in progress, and the same bad answer
  tlm::tlm_dmi dmi;
  port->get_direct_mem_ptr(t, dmi);
  port->transport_dbg(t);
  EXPECT_EQ(checker.errors(), 7u);
  EXPECT_EQ(checker.messages().size(), 7u);
}

namespace {
// Records when each phase of one AT access reaches it, and its data.
class timing_initiator : public sc_core::sc_module, public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_initiator_socket<32> socket;
  sc_core::sc_time end_req, begin_resp, lt_return, lt_value_time;
  uint32_t lt_value = 0, at_value = 0;
  std::function<uint32_t()> observe;  // what the models hold at the access's time

  timing_initiator(sc_core::sc_module_name name, uint32_t address)
      : sc_module(name), socket("socket"), address_(address) {
    socket.bind(*this);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(timing_initiator);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_core::sc_time& d) override {
    (phase == tlm::END_REQ ? end_req : begin_resp) = sc_core::sc_time_stamp() + d;
    if (phase == tlm::BEGIN_RESP) done_.notify();
    return phase == tlm::END_REQ ? tlm::TLM_ACCEPTED : tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void run() {
    // LT at 0 with a local time offset of 50 us: the access happens at 50 us.
    tlm::tlm_generic_payload t;
    test::set_access(t, tlm::TLM_READ_COMMAND, address_, &lt_value);
    sc_core::sc_time delay(50, sc_core::SC_US);
    socket->b_transport(t, delay);
    lt_return = sc_core::sc_time_stamp() + delay;
    lt_value_time = sc_core::sc_time_stamp();
    expected_lt = observe();
    // AT at 50 us + latency with an offset of 30 us: accepted, END_REQ and the access at 80 us.
    sc_core::wait(delay);
    tlm::tlm_generic_payload a;
    test::set_access(a, tlm::TLM_READ_COMMAND, address_, &at_value);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time d(30, sc_core::SC_US);
    start_at = sc_core::sc_time_stamp();
    accepted = socket->nb_transport_fw(a, phase, d) == tlm::TLM_ACCEPTED;
    sc_core::wait(done_);
  }
  uint32_t address_;
  sc_core::sc_event done_;

 public:
  uint32_t expected_lt = 0;
  sc_core::sc_time start_at;
  bool accepted = false;
};
}  // namespace

// A read's local time offset is honoured (it sees the models at sc_time_stamp() + delay), and
// the answer is annotated with regs.latency cycles of regs.clock; an AT access with an offset
// is accepted, its END_REQ and access come at its time, BEGIN_RESP the latency later.
TEST(RegisterTlm, AccessesHappenAtTheirAnnotatedTimeAndCostTheLatency) {
  run_options o;
  o.until = sc_core::sc_time(200, sc_core::SC_US);
  o.sets = {{"sw0.regs.latency", "5"}, {"sw0.regs.clock", "2ns"}};
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  switch_model& sw = *sim.fabric_model().switches[0];
  const uint32_t frames_out = sw.registers.bank().address_of("switch_port[16].FRAMES_OUT_LO[3]");
  timing_initiator init("timing", frames_out);
  init.socket.bind(sw.registers.socket);
  const stat_registry::row* row = nullptr;
  std::vector<stat_registry::row> rows;
  init.observe = [&] {
    rows = stat_registry::instance().rows();
    for (const auto& r : rows)
      if (r.name == "sw0.port16.prio3.frames_out") row = &r;
    return row ? static_cast<uint32_t>(row->value()) : 0u;
  };
  sim.run();
  const sc_core::sc_time latency(10, sc_core::SC_NS);
  EXPECT_EQ(init.lt_value_time, sc_core::sc_time(50, sc_core::SC_US));  // the target waited the offset out
  EXPECT_EQ(init.lt_return, sc_core::sc_time(50, sc_core::SC_US) + latency);
  EXPECT_GT(init.lt_value, 100u);
  EXPECT_EQ(init.lt_value, init.expected_lt);  // the count of frames dequeued up to 50 us
  EXPECT_TRUE(init.accepted);
  EXPECT_EQ(init.end_req, init.start_at + sc_core::sc_time(30, sc_core::SC_US));
  EXPECT_EQ(init.begin_resp, init.end_req + latency);
  EXPECT_GT(init.at_value, 0u);  // read to clear: the frames since the LT read
}
