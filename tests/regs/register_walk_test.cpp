// The register walk: every generated register of every device kind, on the incast under DCQCN
// at 300 us (counters and flags are live by then), through each device's TLM target: reset
// values, masks and reserved bits, read-only refusals, read-to-clear against debug reads, the
// 64-bit latch, write-1-to-clear, write-1-to-set, commands, the lock, and unmapped addresses.
// Every binding names a parameter or statistic of some configuration, and every writable field
// bound to a parameter is bound to a live one.
#include <gtest/gtest.h>

#include <set>

#include "models/core/params.h"
#include "models/core/stats.h"
#include "platforms/timed_callbacks.h"
#include "tests/regs/reg_port.h"
#include "tests/support/harness.h"

using namespace sluice;
using namespace sluice::regs;
using test::reg_ref;

namespace {

constexpr uint64_t us_ps = 1000000ull;

uint32_t field_bits(const register_desc& r) {
  uint32_t m = 0;
  for (uint8_t i = 0; i < r.field_count; ++i) m |= r.fields[i].mask();
  return m;
}

bool all_fields(const register_desc& r, regs::access a) {
  for (uint8_t i = 0; i < r.field_count; ++i)
    if (r.fields[i].acc != a) return false;
  return true;
}

bool read_only(const register_desc& r) {
  for (uint8_t i = 0; i < r.field_count; ++i)
    if (r.fields[i].acc != regs::access::ro && r.fields[i].acc != regs::access::r2c) return false;
  return true;
}

// The incast under DCQCN with static PFC thresholds (16 senders into r0) for 400 us, `walk` called at 300 us with sw0's
// and h0's ports.
void at_300us(const std::function<void(test::reg_port& sw, test::reg_port& nic, simulation& sim)>& walk) {
  run_options o;
  o.cc = "dcqcn";
  o.until = sc_core::sc_time(400, sc_core::SC_US);
  o.sets = {{"sw0.mmu.threshold", "static"}};  // PFC pauses as well as ECN marks
  simulation sim(load_scenario_file(test::scenario_path("incast.yaml")), o);
  test::reg_port sw("sw_regs", sim.fabric_model().switches[0]->registers);
  test::reg_port nic("nic_regs", sim.fabric_model().nics[0]->registers);
  timed_callbacks calls("calls", 400 * us_ps);
  bool walked = false;
  calls.add(300 * us_ps, 0, [&] {
    walk(sw, nic, sim);
    walked = true;
  });
  sim.run();
  EXPECT_TRUE(walked);
}

// Every element of every register: the checks that need no knowledge of the register.
void walk_every_register(test::reg_port& p, std::size_t& registers, std::size_t& counters) {
  for (const reg_ref& r : test::every_register(p.target, p.target.device())) {
    SCOPED_TRACE(r.name);
    ++registers;
    const uint32_t seen = p.peek(r.address);
    EXPECT_EQ(p.peek(r.address), seen) << "a debug read changed the register";
    EXPECT_EQ(seen & ~field_bits(*r.reg), 0u) << "reserved bits read non-zero";
    const bool clears = r.reg->half == 'l' && all_fields(*r.reg, regs::access::r2c);
    if (r.reg->half == 'h') continue;  // the latch: with its LO below
    tlm::tlm_response_status s;
    const uint32_t read = p.read(r.address, &s);
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(read, seen) << "a read and a debug read at the same time differ";
    if (r.reg->half == 'l') {  // LO latched the 64-bit value: HI gives its upper word
      ++counters;
      regs::reg_location w;
      p.target.bank().decode(r.address, w);
      const field_desc& f = r.reg->fields[0];
      if (p.target.bank().resolves(w, f) && f.acc == regs::access::r2c) {
        EXPECT_EQ(p.peek(r.address), 0u) << "a read-to-clear counter did not clear";
      } else if (!clears) {
        EXPECT_EQ(p.peek(r.address), read);
      }
      EXPECT_EQ(p.read(r.address + 4), 0u) << "HI of a counter below 2^32";
      continue;
    }
    if (all_fields(*r.reg, regs::access::pulse) || all_fields(*r.reg, regs::access::wo)) {
      EXPECT_EQ(read, 0u) << "a command or write-only register reads non-zero";
    }
    if (read_only(*r.reg)) {
      EXPECT_EQ(p.write(r.address, ~seen), tlm::TLM_COMMAND_ERROR_RESPONSE);
      EXPECT_EQ(p.peek(r.address), seen);
    }
  }
}

}  // namespace

TEST(RegisterWalk, EveryRegisterOfEveryDeviceKind) {
  at_300us([](test::reg_port& sw, test::reg_port& nic, simulation&) {
    std::size_t registers = 0, counters = 0;
    walk_every_register(sw, registers, counters);
    walk_every_register(nic, registers, counters);
    // incast: 17 switch ports x 8 classes, one flow per sender
    EXPECT_GT(registers, 17u * 8u * 10u);
    EXPECT_GT(counters, 17u * 8u * 4u);
  });
}

TEST(RegisterWalk, StoredFieldsResetMaskAndKeepTheirValue) {
  at_300us([](test::reg_port& sw, test::reg_port& nic, simulation&) {
    for (test::reg_port* p : {&sw, &nic})
      for (const reg_ref& r : test::every_register(p->target, p->target.device())) {
        bool stored_rw = r.reg->alias < 0 && r.reg->field_count > 0;
        uint32_t reset = 0;
        for (uint8_t i = 0; i < r.reg->field_count; ++i) {
          const field_desc& f = r.reg->fields[i];
          stored_rw &= f.kind == bind_kind::none && f.acc == regs::access::rw;
          reset |= f.reset << f.lsb;
        }
        if (!stored_rw) continue;
        SCOPED_TRACE(r.name);
        EXPECT_EQ(p->read(r.address), reset);
        EXPECT_EQ(p->write(r.address, 0xffffffffu), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(p->read(r.address), field_bits(*r.reg)) << "reserved bits kept a written 1";
        EXPECT_EQ(p->write(r.address, 0x5a5a5a5au), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(p->read(r.address), 0x5a5a5a5au & field_bits(*r.reg));
        EXPECT_EQ(p->write(r.address, reset), tlm::TLM_OK_RESPONSE);
      }
  });
}

// A writable field bound to a parameter writes it at run time: the parameter must be live, a
// write of the value read changes nothing, a new value reaches the parameter, and a value out
// of its range is a command error that changes nothing.
TEST(RegisterWalk, WritableParameterFieldsAreLiveAndWriteThrough) {
  at_300us([](test::reg_port& sw, test::reg_port& nic, simulation&) {
    std::size_t written = 0;
    for (test::reg_port* p : {&sw, &nic})
      for (const reg_ref& r : test::every_register(p->target, p->target.device())) {
        if (r.reg->field_count != 1) continue;
        const field_desc& f = r.reg->fields[0];
        if (f.kind != bind_kind::param || f.acc != regs::access::rw) continue;
        regs::reg_location w;
        p->target.bank().decode(r.address, w);
        param_base* prm = p->target.bank().parameter(w, f);
        if (!prm) {
          EXPECT_EQ(p->write(r.address, 1), tlm::TLM_COMMAND_ERROR_RESPONSE) << r.name;
          continue;
        }
        SCOPED_TRACE(r.name + " -> " + prm->name());
        EXPECT_TRUE(prm->live()) << "a writable register bound to a fixed parameter";
        const std::string before = prm->value_string();
        const uint32_t v = p->read(r.address);
        EXPECT_EQ(p->write(r.address, v), tlm::TLM_OK_RESPONSE) << p->target.bank().error();
        EXPECT_EQ(prm->value_string(), before);
        const uint32_t other = v > 1 ? v - 1 : v + 1;
        if (p->write(r.address, other) == tlm::TLM_OK_RESPONSE) {
          EXPECT_EQ(p->read(r.address), other);
          EXPECT_NE(prm->value_string(), before);
        }
        EXPECT_EQ(p->write(r.address, v), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(p->read(r.address), v);  // (a fraction comes back rounded to the field's unit)
        ++written;
      }
    EXPECT_GT(written, 17u * 6u);  // every port's PFC settings, prio3's ECN, the MMU's alphas, DCQCN's RP
    // Out of range (ECN_PMAX above 1): refused, with the parameter's own one-line message.
    const uint32_t pmax = sw.target.bank().address_of("switch_port[1].ECN_PMAX[3]");
    const uint32_t was = sw.read(pmax);
    EXPECT_EQ(sw.write(pmax, 0x1ffff), tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_NE(sw.target.bank().error().find("sw0.port1.prio3.ecn.pmax"), std::string::npos) << sw.target.bank().error();
    EXPECT_EQ(sw.read(pmax), was);
  });
}

TEST(RegisterWalk, ReadToClearAgainstDebugReadAndTheLatch) {
  at_300us([](test::reg_port& sw, test::reg_port&, simulation&) {
    regs::register_bank& bank = sw.target.bank();
    // r0's port (4 of the incast's 17? the receiver's port is the last) pauses its senders: find
    // a port whose PAUSE_SENT is non-zero.
    uint32_t lo = 0, expected = 0;
    for (uint32_t port = 0; port < sw.target.device().instances(*bank.desc().blocks[1]); ++port) {
      lo = bank.address_of("switch_port[" + std::to_string(port) + "].FRAMES_OUT_LO[3]");
      const stat_registry::row* row = nullptr;
      for (const auto& r : stat_registry::instance().rows())
        if (r.name == "sw0.port" + std::to_string(port) + ".prio3.frames_out") {
          expected = static_cast<uint32_t>(r.value());
          row = &r;
        }
      if (row && expected > 0) break;
    }
    ASSERT_GT(expected, 0u);
    EXPECT_EQ(sw.peek(lo), expected);  // a debug read: the count since the start, and no clear
    EXPECT_EQ(sw.peek(lo), expected);
    EXPECT_EQ(sw.peek(lo + 4), 0u);    // nothing latched by a debug read
    EXPECT_EQ(sw.read(lo), expected);  // the read clears
    EXPECT_EQ(sw.read(lo + 4), 0u);
    EXPECT_EQ(sw.peek(lo), 0u);
    EXPECT_EQ(sw.read(lo), 0u);
    // PAUSED_TIME is a plain read-only counter: a read does not clear it.
    const uint32_t paused = bank.address_of("switch_port[1].PAUSED_TIME_LO[3]");
    const uint32_t t = sw.read(paused);
    EXPECT_EQ(sw.read(paused), t);
    // CTRL.CLEAR_COUNTERS: every read-to-clear counter reads 0 (at this same time).
    const uint32_t drops = bank.address_of("switch_globals.DROPS_LO");
    const uint32_t pauses = bank.address_of("switch_port[1].PAUSE_RECEIVED_LO[3]");
    EXPECT_EQ(sw.write(bank.address_of("switch_globals.CTRL"), 1), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sw.peek(drops), 0u);
    EXPECT_EQ(sw.peek(pauses), 0u);
    EXPECT_EQ(sw.read(bank.address_of("switch_globals.CTRL")), 0u);
  });
}

TEST(RegisterWalk, WriteOneToClearWriteOneToSetAndTheLock) {
  at_300us([](test::reg_port& sw, test::reg_port& nic, simulation&) {
    regs::register_bank& bank = sw.target.bank();
    // Sticky flags: set (the port's senders were paused, frames were dequeued), cleared by a 1.
    const uint32_t status = bank.address_of("switch_globals.INT_STATUS");
    const uint32_t flags = sw.peek(status);
    EXPECT_EQ(flags & 1u, 1u) << "PAUSE_SENT: sw0 paused its senders before 300 us";
    EXPECT_EQ(sw.read(status), flags);  // reading does not clear
    EXPECT_EQ(sw.write(status, 1u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sw.read(status), flags & ~1u);
    EXPECT_EQ(sw.write(status, 0u), tlm::TLM_OK_RESPONSE);  // a 0 clears nothing
    EXPECT_EQ(sw.read(status), flags & ~1u);
    // Write 1 to set, with its clearing alias.
    regs::register_bank& nb = nic.target.bank();
    const uint32_t enable = nb.address_of("INT_ENABLE"), disable = nb.address_of("INT_DISABLE");
    EXPECT_EQ(nic.read(enable), 0u);
    EXPECT_EQ(nic.write(enable, 0x5u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(nic.write(enable, 0x0u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(nic.read(enable), 0x5u);
    EXPECT_EQ(nic.write(enable, 0xffffffffu), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(nic.read(enable), 0x7u);
    EXPECT_EQ(nic.write(disable, 0x1u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(nic.read(enable), 0x6u);
    EXPECT_EQ(nic.read(disable), 0x6u);
    // The lock: lockable registers refuse writes, others take them; a 0 does not unlock.
    const uint32_t xoff = bank.address_of("switch_port[2].PFC_XOFF"), scratch = bank.address_of("SCRATCH");
    const uint32_t lock = bank.address_of("LOCK");
    const uint32_t x = sw.read(xoff);
    EXPECT_EQ(sw.write(lock, 1u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sw.read(lock), 1u);
    EXPECT_EQ(sw.write(xoff, x / 2), tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_NE(bank.error().find("locked"), std::string::npos);
    EXPECT_EQ(sw.read(xoff), x);
    EXPECT_EQ(sw.write(scratch, 7u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sw.write(lock, 0u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sw.read(lock), 1u);
    EXPECT_EQ(sw.write(xoff, x / 2), tlm::TLM_COMMAND_ERROR_RESPONSE);
    bank.reset();
    EXPECT_EQ(sw.read(lock), 0u);
    EXPECT_EQ(sw.read(scratch), 0u);
    EXPECT_EQ(sw.write(xoff, x), tlm::TLM_OK_RESPONSE);
  });
}

TEST(RegisterWalk, UnmappedAddressesAnswerAnAddressError) {
  at_300us([](test::reg_port& sw, test::reg_port& nic, simulation&) {
    std::set<uint32_t> mapped;
    for (test::reg_port* p : {&sw, &nic}) {
      mapped.clear();
      for (const reg_ref& r : test::every_register(p->target, p->target.device())) mapped.insert(r.address);
      const uint32_t last = *mapped.rbegin();
      std::size_t holes = 0;
      for (uint32_t a = 0; a <= last + 0x2000; a += 4) {
        if (mapped.count(a)) continue;
        ++holes;
        ASSERT_EQ(p->read(a), 0u);
        tlm::tlm_response_status s;
        p->read(a, &s);
        ASSERT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE) << std::hex << a;
        ASSERT_EQ(p->write(a, 1), tlm::TLM_ADDRESS_ERROR_RESPONSE) << std::hex << a;
      }
      EXPECT_GT(holes, 1000u);
      tlm::tlm_response_status s;
      p->read(*mapped.begin() + 2, &s);  // misaligned
      EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE);
      p->read(0xfffffff0u, &s);
      EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    }
  });
}

namespace {
// Bindings (device kind, block, register, field) that name nothing in the configuration, over
// every device of the fabric and every instance and element.
std::set<std::string> unresolved(simulation& sim) {
  std::set<std::string> all, resolved;
  auto visit = [&](regs::register_target& t) {
    for (const reg_ref& r : test::every_register(t, t.device())) {
      regs::reg_location w;
      t.bank().decode(r.address, w);
      for (uint8_t i = 0; i < r.reg->field_count; ++i) {
        const field_desc& f = r.reg->fields[i];
        if (f.kind != bind_kind::param && f.kind != bind_kind::stat) continue;
        const std::string id = std::string(r.block->name) + "." + r.reg->name + "." + f.name;
        all.insert(id);
        if (t.bank().resolves(w, f)) resolved.insert(id);
      }
    }
  };
  for (auto& s : sim.fabric_model().switches) visit(s->registers);
  for (auto& n : sim.fabric_model().nics) visit(n->registers);
  std::set<std::string> out;
  for (const std::string& id : all)
    if (!resolved.count(id)) out.insert(id);
  return out;
}

std::string unresolved_in(const std::string& scenario_file, const std::string& cc, sc_core::sc_time until) {
  run_options o;
  o.cc = cc;
  o.until = until;
  simulation sim(load_scenario_file(test::scenario_path(scenario_file)), o);
  sim.run();
  std::string out;
  for (const std::string& id : unresolved(sim)) out += id + "\n";
  return out;
}
}  // namespace

TEST(RegisterWalk, EveryBindingNamesAParameterOrStatisticOfSomeConfiguration) {
  const std::string ib =
      test::in_child([] { return unresolved_in("ib-incast.yaml", "ib-cca", sc_core::sc_time(50, sc_core::SC_US)); });
  const std::string cee = unresolved_in("dumbbell-dcqcn.yaml", "", sc_core::sc_time(50, sc_core::SC_US));
  std::set<std::string> in_ib;
  std::istringstream lines(ib);
  for (std::string l; std::getline(lines, l);) in_ib.insert(l);
  std::istringstream cee_lines(cee);
  std::size_t missing_in_one = 0;
  for (std::string l; std::getline(cee_lines, l);) {
    ++missing_in_one;
    EXPECT_EQ(in_ib.count(l), 0u) << l << " names nothing on dumbbell-dcqcn nor on ib-incast with ib-cca";
  }
  EXPECT_GT(missing_in_one, 0u);  // the IB CCA fields
}
