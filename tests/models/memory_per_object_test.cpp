// What a built fabric costs per NIC and per port (issue 23, docs/scale.md): per-class state is
// sized by the object's own classes, a NIC's port keeps no PFC generator or watchdog state, a
// register bank no one accesses allocates nothing, a parameter keeps one pointer to its interned
// hooks, and a queued frame is a 32-byte descriptor. The sizeof bounds fail if state sized for
// max_classes (or a std::deque) comes back into an object; the heap measured around a NIC's
// construction fails if its per-class state is allocated for more classes than it has.
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <thread>

#include "models/core/event_queue.h"
#include "models/core/line_arena.h"
#include "models/core/params.h"
#include "models/link/link.h"
#include "models/nic/nic.h"
#include "models/regs/register_target.h"
#include "models/switch/queued_frame.h"
#include "models/switch/switch_model.h"

using namespace sluice;

namespace {
std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}
}  // namespace

// Measured when the bounds were set (x86-64, libstdc++, SystemC 2.3.4): nic 6 232 bytes (8 600
// with its transmit scheduler's arrays for 16 classes and a NIC port's PFC generator state),
// tx_scheduler 288 (2 072), pfc 928 (1 432), register_target 1 032 (1 112 with two deques).
TEST(MemoryPerObject, ObjectsHoldNoStateForClassesTheyDoNotHave) {
  EXPECT_LE(sizeof(tx_scheduler), 320u);
  EXPECT_LE(sizeof(pfc), 960u);
  EXPECT_LE(sizeof(nic), 6400u);
  EXPECT_LE(sizeof(regs::register_target), 1040u);
  // A MAC or a link direction holds its two sockets only as their promise (socket_on_demand.h):
  // 632 bytes each with them made.
  // Both are aligned to a cache line (their hot fields are then two lines, not three): a link
  // direction's 536 bytes take 576.
  EXPECT_LE(sizeof(mac_port), 512u);      // 512: 504 of fields (1 064 with its sockets before)
  EXPECT_LE(sizeof(link_channel), 576u);  // 576: 552 of fields (1 112 with its sockets before)
}

// A transmit scheduler built for 2 classes allocates for 2 (112 bytes a class: its control
// queue, parked flows and counters), one for 8 for 8; the NIC gives it its own classes.
TEST(MemoryPerObject, ATransmitSchedulerAllocatesForItsClasses) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's allocator serves the heap: mallinfo2 sees none of it";
#endif
  flow_table flows;
  nic n("h0", 0, flows, 2);
  EXPECT_EQ(n.transmitter().classes(), 2);
  const auto heap_of = [&](int classes) {
    const std::size_t before = heap_in_use();
    tx_scheduler tx(n.port.mac, n.port.gate(), flows, classes);
    EXPECT_EQ(tx.classes(), classes);
    return static_cast<long>(heap_in_use()) - static_cast<long>(before);
  };
  const long two = heap_of(2), eight = heap_of(8);
  EXPECT_LE(two, 2 * 160) << "2 classes: " << two << " bytes";
  EXPECT_GE(eight - two, 6 * 88) << "2 classes: " << two << " bytes, 8 classes: " << eight;
  EXPECT_LE(eight - two, 6 * 160) << "2 classes: " << two << " bytes, 8 classes: " << eight;
}

// A switch port keeps its drop counters per class (16 bytes a class) and makes a congestion
// point's block (the policy and the injector counting its CNMs) only for a class whose `cp`
// chooses one: making the policies of a port that chooses none allocates its scheduler alone.
TEST(MemoryPerObject, ASwitchPortMakesCongestionPointsOnlyForClassesThatChooseOne) {
  switch_model sw("sw", 0, 2, 8);
  param_registry::instance().set("sw.port1.prio3.cp", "ecn-threshold");
  const std::size_t before = heap_in_use();
  sw.ports[0]->make_policies(sw);
#ifndef __SANITIZE_ADDRESS__
  EXPECT_LE(heap_in_use() - before, sizeof(egress_scheduler) + 16)
      << "a port without congestion points allocated for them";
#endif
  sw.make_policies();
  for (int p = 0; p < 2; ++p)
    for (int c = 0; c < 8; ++c) {
      EXPECT_EQ(sw.ports[p]->congestion_point(c) != nullptr, p == 1 && c == 3) << "port " << p << " class " << c;
      EXPECT_EQ(sw.ports[p]->cnm_sent(c), 0u);
    }
  sw.ports[0]->count_drop(5, true);
  sw.ports[0]->count_drop(5);
  sw.ports[1]->count_drop(2);
  for (int p = 0; p < 2; ++p)
    for (int c = 0; c < 8; ++c) {
      EXPECT_EQ(sw.ports[p]->drops(c), p == 0 && c == 5 ? 2u : p == 1 && c == 2 ? 1u : 0u);
      EXPECT_EQ(sw.ports[p]->unroutable_drops(c), p == 0 && c == 5 ? 1u : 0u);
    }
}

// A switch port's per-class parameters (prio<k>.sched, weight, cp: 24 of a CEE port's 38) are
// made only when named (param_family): a built port has none, its scheduler reads the defaults,
// and a scenario's override makes exactly the classes it names, which the scheduler then reads.
TEST(MemoryPerObject, ASwitchPortMakesAClassParameterOnlyWhenNamed) {
  EXPECT_LE(sizeof(class_params<choice_param>), 56u);  // and nothing on the heap until a class is made
  // 2 392 with its three families (2 344 before); 2 496 since its MAC and its egress port are each
  // cache-line aligned (a hop's fields on lines of their own; docs/performance-history.md, fourteenth round);
  // 2 432 since the egress port keeps no line of head sizes (fifteenth round).
  EXPECT_LE(sizeof(switch_port), 2432u);
  switch_model sw("swf", 0, 2, 8);
  for (const auto& port : sw.ports)
    for (int k = 0; k < 8; ++k) {
      EXPECT_FALSE(port->sched.made(k) || port->weight.made(k) || port->cp.made(k)) << port->name() << " class " << k;
      EXPECT_EQ(port->weight.value(k), 1u);
      EXPECT_EQ(port->sched.value(k), "dwrr");
      EXPECT_EQ(port->cp.value(k), "none");
    }
  param_registry::instance().set("swf.port1.prio6.weight", "5");
  param_registry::instance().set("swf.port*.prio2.sched", "strict");
  for (int p = 0; p < 2; ++p)
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(sw.ports[p]->weight.made(k), p == 1 && k == 6);
      EXPECT_EQ(sw.ports[p]->sched.made(k), k == 2);
      EXPECT_FALSE(sw.ports[p]->cp.made(k));
    }
  EXPECT_EQ(sw.ports[1]->weight.value(6), 5u);
  EXPECT_EQ(sw.ports[0]->sched.value(2), "strict");
}

// A NIC's port never sends PFC frames: it has no generator counters or watchdog (0 for each),
// while a port with a buffer behind it counts what it sends.
TEST(MemoryPerObject, ANicPortKeepsNoGeneratorState) {
  flow_table flows;
  nic n("h0", 0, flows, 8);
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(n.port.flow_control.xoff_sent(c), 0u);
    EXPECT_EQ(n.port.flow_control.watchdog_storms(c), 0u);
    EXPECT_FALSE(n.port.flow_control.in_storm(c));
  }
  EXPECT_EQ(n.port.flow_control.quanta, nullptr);
}

// A queued frame's descriptor is 32 bytes (a congested fabric holds millions: docs/scale.md) and
// gives back every field of a data frame at the edges of its ranges.
TEST(MemoryPerObject, AQueuedFrameKeepsEveryFieldInThirtyTwoBytes) {
  EXPECT_LE(sizeof(queued_frame), 32u);
  frame_fields f;
  f.kind = frame_kind::data;
  f.priority = 5;
  f.ecn = 3;
  f.flags = frame_flags::fecn | frame_flags::becn | frame_flags::tcd_ue | frame_flags::probe;
  f.flow_id = 0x1234;  // ids past 2^24 are refused (below); the table is as large as the largest id
  f.src = 0xFFFFFE;
  f.dst = 0xFFFFFFFE;
  f.size = 0xFFFE;            // the largest a descriptor holds
  f.payload = f.size - 0xFF;  // header bytes (size less payload) up to 255 are the flow's
  f.ingress_port = 0x1234;
  f.hops = 200;
  f.path = 17;
  f.sl = 15;
  f.ingress_cls = 7;
  f.set_id((uint64_t{1} << 32) - 1);
  f.seq = (uint64_t{1} << 32) - 1;
  f.ready_ps = uint64_t{1} << 62;
  f.created_ps = f.ready_ps - 0xFFFFFFFF;
  queued_frame e;
  ASSERT_TRUE(e.pack(f));
  EXPECT_EQ(e.size(), f.size);
  frame_fields back;
  e.unpack(5, back);
  EXPECT_EQ(std::memcmp(&f, &back, sizeof(frame_fields)), 0);
}

// A frame with a field beyond the descriptor's range, a kind other than data, or ends or header
// bytes other than its flow's is refused (it keeps its payload in the queue), one field at a time.
TEST(MemoryPerObject, AFrameBeyondTheDescriptorsRangeIsRefused) {
  const std::vector<std::function<void(frame_fields&)>> beyond = {
      [](frame_fields& f) { f.seq = uint64_t{1} << 32; },
      [](frame_fields& f) { f.created_ps = f.ready_ps - (uint64_t{1} << 32); },
      [](frame_fields& f) { f.created_ps = f.ready_ps + 1; },
      [](frame_fields& f) { f.flow_id = queued_flow_ends::max_flows; },
      [](frame_fields& f) { f.src += 1; },  // the flow's ends were learnt from the first pack
      [](frame_fields& f) { f.dst += 1; },
      [](frame_fields& f) { f.src = 1u << 24; },
      [](frame_fields& f) { f.payload = f.size - 256; },
      [](frame_fields& f) { f.payload -= 1; },  // its header bytes are not its flow's
      [](frame_fields& f) { f.payload = f.size + 1; },
      [](frame_fields& f) { f.size = 0xFFFF; },  // a wide frame: its size stays whole
      [](frame_fields& f) { f.size = 70000; },
      [](frame_fields& f) { f.set_id(uint64_t{1} << 32); },
      [](frame_fields& f) { f.cp_tag = 1; },
      [](frame_fields& f) { f.ecn = 4; },
      [](frame_fields& f) { f.flags = 1u << 4; },
      [](frame_fields& f) { f.kind = frame_kind::cnp; },
  };
  for (std::size_t i = 0; i < beyond.size(); ++i) {
    frame_fields f;
    f.ready_ps = uint64_t{1} << 40;
    f.created_ps = f.ready_ps - 1000;
    f.flow_id = 4000 + static_cast<uint32_t>(i);
    f.src = 11;
    f.dst = 12;
    f.size = 1048;
    f.payload = 1000;
    f.flags = frame_flags::fecn;
    queued_frame e;
    EXPECT_TRUE(e.pack(f));
    beyond[i](f);
    EXPECT_FALSE(e.pack(f)) << i;
    // The fields the queue reads are right either way.
    EXPECT_EQ(e.size(), f.size) << i;
    EXPECT_EQ(e.ready_ps, f.ready_ps);
    EXPECT_EQ(e.flags() & frame_flags::kept_payload, 0);
    EXPECT_EQ(e.ingress_port, f.ingress_port);
  }
}

// Random frames, in and beyond every range, against the plain rule: a frame is held as a
// descriptor exactly when it is a data frame whose fields fit and whose ends and header bytes
// (size less payload) are its flow's (learnt from its first frame), and a held frame comes back
// with every field it had; a refused one still has right the fields the queue reads. Fails if the
// descriptor loses a field or a bit of one, or holds a frame it cannot give back.
// With window threads (docs/parallel.md) every thread reads the flow-ends table: it never moves
// then (a run reserves it for all its flows), so a frame of a flow beyond it keeps its payload;
// two threads learning one flow at once both find its ends.
TEST(MemoryPerObject, OnWindowThreadsTheFlowEndsTableNeverMoves) {
  queued_flow_ends::scope scope;
  scope.reserve(64);
  event_queue::instance().run_in_windows(
      2, 2, 1000000, [](uint64_t) { return 0u; }, [](uint32_t) {});
  const uint64_t* const table = queued_flow_ends::table;
  EXPECT_FALSE(queued_flow_ends::known(64, 1));
  EXPECT_EQ(queued_flow_ends::table, table);
  EXPECT_EQ(queued_flow_ends::count, 64u);
  bool other = false;
  std::thread learner([&] { other = queued_flow_ends::known(7, 42); });
  const bool here = queued_flow_ends::known(7, 42);
  learner.join();
  EXPECT_TRUE(here);
  EXPECT_TRUE(other);
  EXPECT_FALSE(queued_flow_ends::known(7, 43));  // the ends learnt stay
}

TEST(MemoryPerObject, RandomFramesComeBackFromTheDescriptorAsTheyWent) {
  std::mt19937_64 rng(23);
  auto bits = [&](int n) { return n >= 64 ? rng() : rng() & ((uint64_t{1} << n) - 1); };
  auto edge = [&](int n, int limit) {  // mostly within limit bits, sometimes at or past the edge
    switch (rng() % 8) {
      case 0:
        return (uint64_t{1} << limit) - 1;
      case 1:
        return bits(n);
      default:
        return bits(limit);
    }
  };
  constexpr uint32_t first_flow = 5000;  // away from the other tests' flows
  std::map<uint32_t, uint64_t> ends;     // the plain rule's own record of each flow's ends
  int held = 0, refused = 0;
  for (int i = 0; i < 200000; ++i) {
    frame_fields f;
    f.kind = rng() % 8 ? frame_kind::data : static_cast<frame_kind>(rng() % shipped_frame_kinds);
    f.priority = static_cast<uint8_t>(rng() % max_classes);
    f.ecn = static_cast<uint8_t>(edge(8, 2));
    f.flags = static_cast<uint8_t>(rng() % 8 ? bits(4) : bits(7));  // never kept_payload in a frame
    // 64 flows, or an id past the descriptor's 24 bits (a small table: it is sized by the largest id).
    f.flow_id = first_flow + static_cast<uint32_t>(rng() % 64);
    if (rng() % 16 == 0) f.flow_id = queued_flow_ends::max_flows + static_cast<uint32_t>(bits(31));
    const bool usual_ends = rng() % 8 != 0;
    f.src = usual_ends ? f.flow_id * 7 % 1000 : static_cast<uint32_t>(bits(rng() % 2 ? 24 : 32));
    f.dst = usual_ends ? f.flow_id * 11 % 1000 + 1 : static_cast<uint32_t>(bits(rng() % 2 ? 24 : 32));
    f.size = static_cast<uint32_t>(rng() % 4 ? bits(14) : edge(32, 16));
    // Mostly the flow's header bytes, sometimes another payload (larger than the size too).
    const uint32_t header_bytes = f.flow_id % 3 * 30;
    f.payload = rng() % 8 && f.size >= header_bytes ? f.size - header_bytes : static_cast<uint32_t>(edge(32, 14));
    f.ingress_port = static_cast<uint16_t>(bits(16));
    f.hops = static_cast<uint8_t>(bits(8));
    f.path = static_cast<uint8_t>(bits(8));
    f.sl = static_cast<uint8_t>(bits(8));
    f.ingress_cls = static_cast<uint8_t>(bits(8));
    f.set_id(edge(48, 32));
    f.cp_tag = rng() % 16 ? 0 : static_cast<uint32_t>(bits(32));
    f.seq = edge(64, 32);
    f.ready_ps = bits(rng() % 2 ? 40 : 64);
    f.created_ps = f.ready_ps - edge(64, 32);
    const uint64_t e = f.src | uint64_t{f.size - f.payload} << 24 | uint64_t{f.dst} << 32;
    const bool fits = f.kind == frame_kind::data && f.seq < (uint64_t{1} << 32) &&
                      f.ready_ps - f.created_ps < (uint64_t{1} << 32) && f.flow_id < queued_flow_ends::max_flows &&
                      f.id() < (uint64_t{1} << 32) && f.size < 0xFFFF && f.payload <= f.size &&
                      f.size - f.payload < 256 && f.src < (1u << 24) && f.ecn < 4 && (f.flags & 0xF0) == 0 &&
                      f.cp_tag == 0;
    bool expect = fits;
    if (fits) expect = ends.emplace(f.flow_id, e).first->second == e;
    queued_frame d;
    const bool packed = d.pack(f);
    ASSERT_EQ(packed, expect) << i;
    EXPECT_EQ(d.size(), f.size);
    EXPECT_EQ(d.ready_ps, f.ready_ps);
    EXPECT_EQ(d.flags() & frame_flags::kept_payload, 0);  // add_flags sets it on a refused frame
    EXPECT_EQ(d.ingress_port, f.ingress_port);
    EXPECT_EQ(d.ingress_cls, f.ingress_cls);
    if (!packed) {
      ++refused;
      continue;
    }
    ++held;
    frame_fields back;
    std::memset(static_cast<void*>(&back), 0xA5, sizeof back);  // every byte written by unpack
    d.unpack(f.priority, back);
    ASSERT_EQ(std::memcmp(&f, &back, sizeof(frame_fields)), 0) << i;
  }
  EXPECT_GT(held, 40000);
  EXPECT_GT(refused, 40000);
}

namespace {
struct alignas(64) line_probe {
  line_probe() { ++alive; }
  ~line_probe() { --alive; }
  unsigned char bytes[100] = {};
  static inline int alive = 0;
};
}  // namespace

// The line-aligned objects that live for the whole run (switch ports, NICs, links, an egress
// port's class states) are made in the line arena (line_arena.h): one after another on whole
// lines, with no malloc header, tail or new[] count between them, each destroyed by its owner,
// and the arena's chunks freed with the last of them.
TEST(MemoryPerObject, LineAlignedObjectsAreMadeOneAfterAnotherInTheLineArena) {
  const std::size_t live_before = line_arena::live();
  constexpr int n = 64;
  std::vector<line_probe*> arrays;
  for (int i = 0; i < n; ++i) arrays.push_back(make_line_array<line_probe>(3));
  EXPECT_EQ(line_probe::alive, 3 * n);
  EXPECT_EQ(line_arena::live(), live_before + n);
  int adjacent = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(arrays[i]) % 64, 0u);
    if (i > 0) {
      adjacent += reinterpret_cast<const char*>(arrays[i]) ==
                  reinterpret_cast<const char*>(arrays[i - 1] + 3) + line_arena::redzone_bytes;
    }
  }
#ifdef __SANITIZE_ADDRESS__
  // The line after an object is poisoned: ASan reports an object written past its end.
  EXPECT_TRUE(__asan_address_is_poisoned(arrays[0] + 3));
  EXPECT_FALSE(__asan_address_is_poisoned(reinterpret_cast<const char*>(arrays[0] + 3) - 1));
#endif
  EXPECT_GE(adjacent, n - 2) << "a count or a malloc header between arrays (one new chunk at most)";
  {
    switch_model sw("arena_sw", 0, 2, 8);
    EXPECT_EQ(line_arena::live(), live_before + n + 2 * 2);  // two ports, each with its class states
    for (const auto& port : sw.ports) EXPECT_EQ(reinterpret_cast<uintptr_t>(port.get()) % 64, 0u);
  }
  EXPECT_EQ(line_arena::live(), live_before + n);
  const std::size_t heap_held = heap_in_use();
  for (line_probe* a : arrays) destroy_line_array(a, 3);
  EXPECT_EQ(line_probe::alive, 0);
  EXPECT_EQ(line_arena::live(), live_before);
#ifndef __SANITIZE_ADDRESS__
  if (live_before == 0) {
    EXPECT_GE(heap_held - heap_in_use(), std::size_t{1} << 20) << "the arena's chunk was kept";
  }
#endif
}

// The packet pool makes its payloads in blocks (packet.cpp): a payload costs its own bytes and
// TLM's extension array, not also malloc's header and a pointer in a list (the frames on a big
// fabric's wires are hundreds of thousands). Each payload is its own: distinct, not overlapping,
// its header in place, counted once, and reused once released.
TEST(MemoryPerObject, PayloadsAreMadeInBlocksAndEachIsItsOwn) {
  packet_pool& pool = packet_pool::instance();
  constexpr std::size_t n = 640;
  std::vector<tlm::tlm_generic_payload*> held;
  held.reserve(n);  // before the heap is measured
  const std::size_t made_before = pool.allocated();
  const std::size_t heap_before = heap_in_use();
  for (std::size_t i = 0; i < n; ++i) held.push_back(i % 2 ? pool.acquire() : pool.acquire_queued());
  const std::size_t per_payload = (heap_in_use() - heap_before) / n;
  // TLM's extension array, a malloc chunk of its own: a pointer per extension type and the header.
  const std::size_t extensions = std::max<std::size_t>(32, (tlm::max_num_extensions() * 8 + 8 + 15) & ~std::size_t{15});
  EXPECT_LE(per_payload, packet_pool::payload_room_bytes + extensions + 8)
      << "malloc's header and a list's pointer came back";
  EXPECT_EQ(pool.allocated(), made_before + n);
  std::vector<tlm::tlm_generic_payload*> sorted = held;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < n; ++i)
    EXPECT_GE(reinterpret_cast<char*>(sorted[i]) - reinterpret_cast<char*>(sorted[i - 1]),
              static_cast<std::ptrdiff_t>(sizeof(pooled_payload)));
  for (tlm::tlm_generic_payload* p : held) {  // at one of a line's two places (packet_pool::payload_room_bytes)
    const auto in_line = reinterpret_cast<std::uintptr_t>(p) % 64;
    EXPECT_TRUE(in_line == 8 || in_line == 40) << in_line;
  }
  for (std::size_t i = 0; i < n; ++i) header(*held[i]).flow_id = static_cast<uint32_t>(i);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(header(*held[i]).flow_id, i);
    EXPECT_EQ(held[i]->get_extension<packet_header>(), &header(*held[i]));
  }
  tlm::tlm_generic_payload* control = pool.acquire(true);
  ASSERT_NE(header(*control).image, nullptr);
  EXPECT_EQ(control->get_data_ptr(), header(*control).image->data());
  control->release();
  for (tlm::tlm_generic_payload* p : held) p->release();
  const std::size_t made = pool.allocated();
  for (std::size_t i = 0; i < n; ++i) held[i] = pool.acquire();
  EXPECT_EQ(pool.allocated(), made);  // reused, none made
  for (tlm::tlm_generic_payload* p : held) p->release();
}

namespace {
const param_spec<uint64_t> hooked_spec{"hooked", "a parameter with hooks", 1, 0, 10, param_change::live};
struct hook_owner : param_listener {
  int changes = 0;
  void param_changed(const param_base&) override { ++changes; }
  static std::string inert(const void*, const param_base& p) { return p.cls() == 3 ? "class 3 is off" : ""; }
};
}  // namespace

// A parameter keeps one pointer to its interned (listener, inertness check, model) triple, not
// the three (24 bytes of 1.5 million parameters at 10 240 hosts): parameters of one model with
// the same hooks share one triple, and each still reaches its own hooks.
TEST(MemoryPerObject, ParametersOfAModelShareTheirHooks) {
  EXPECT_LE(sizeof(param_base), 40u);  // 56 with the three pointers
  EXPECT_LE(sizeof(param<uint64_t>), 56u);
  hook_owner owner, other;
  const std::size_t before = param_hooks::made();
  std::vector<std::unique_ptr<param<uint64_t>>> ps;
  for (int c = 0; c < 8; ++c) {
    ps.push_back(std::make_unique<param<uint64_t>>(nullptr, hooked_spec, c));
    ps.back()->inert_when(&hook_owner::inert, &owner);
    ps.back()->on_change(&owner);
  }
  param<uint64_t> apart(nullptr, hooked_spec, 9);
  apart.on_change(&other);
  EXPECT_EQ(param_hooks::made() - before, 3u);  // (none, inert, owner), (owner, inert, owner), (other, -, -)
  EXPECT_EQ(ps[3]->inert_reason(), "class 3 is off");
  EXPECT_EQ(ps[2]->inert_reason(), "");
  EXPECT_EQ(apart.inert_reason(), "");
  ps[5]->write_live("4");
  apart.write_live("2");
  EXPECT_EQ(owner.changes, 1);
  EXPECT_EQ(other.changes, 1);
  EXPECT_THROW(ps[0]->on_change(&other), std::logic_error);  // a second listener
}
