// A frame in a switch egress queue: its descriptor, 32 bytes where the frame's fields are 64.
//
// A congested fabric's memory is mostly these descriptors (a 10 240-host leaf-spine holds
// millions of queued frames after 1 ms of its permutation; docs/scale.md), so each field takes
// the width real frames need: a byte offset within a flow below 2^32, a frame younger than
// 2^32 ps (4.3 ms) when it clears the pipeline, a flow id below 2^24, a frame id below 2^32, a
// size below 64 KiB, a 2-bit ECN code point, four flag bits, and no ECM CPID tag. Only data
// frames are held this way, and their source, destination and header bytes (size less payload)
// are their flow's (queued_flow_ends below), not stored. A frame outside these (pack returns
// false) keeps its payload beside the descriptor, as frames with a wire image do (egress_port's
// kept_payload), so every frame leaves with exactly the fields it came with. The priority is the
// queue's class.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "models/core/packet.h"

namespace sluice {

// The source, destination and header bytes of each flow, by flow id (src | dst << 24 | (size -
// payload) << 48), learnt from the first data frame of the flow a switch queues: a data frame's
// descriptor then holds none of them (docs/scale.md, eleventh and twelfth rounds). One table for the process, as flow
// ids are the run's: a frame whose ends differ from its flow's (a test's hand-made frame) is not held as a descriptor,
// so nothing depends on what was learnt first.
namespace queued_flow_ends {
constexpr uint32_t max_flows = 1u << 24;  // the descriptor's flow id bits
constexpr uint64_t unknown = ~uint64_t{0};
// Hidden: read on every queued frame, without the GOT's load (event_queue.h's clock does the same).
[[gnu::visibility("hidden")]] inline uint64_t* table = nullptr;
[[gnu::visibility("hidden")]] inline uint32_t count = 0;
// Records ends as flow's if it has none yet (growing the table); true if flow's ends are now ends.
[[gnu::noinline, gnu::cold]] bool learn(uint32_t flow, uint64_t ends);
inline bool known(uint32_t flow, uint64_t ends) { return (flow < count && table[flow] == ends) || learn(flow, ends); }
// The table's lifetime: a simulation holds one scope (platforms/simulation.h), sized by its flows at
// once (not doubled as they show up); when the last scope alive ends, the table's memory is given
// back, so a process that runs several simulations keeps none of an earlier run's flows. Outside
// any scope (a model test's bench) the table grows as flows show up and stays.
class scope {
 public:
  scope();
  ~scope();
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;
  void reserve(std::size_t flows);  // room for flow ids below flows (at most max_flows)
};
}  // namespace queued_flow_ends

struct queued_frame {
  // Read by the queue itself (scheduling, the congestion point's view, the buffer's return) and
  // copied whole where frame_fields has the same bytes in the same order (one 8-byte move each;
  // the size takes the place of the id's upper half, which a held frame has as 0).
  uint64_t ready_ps = 0;  // when the frame clears the forwarding pipeline
  uint16_t ingress_port = no_ingress;
  uint8_t hops = 0, path = 0, sl = 0;
  uint8_t ingress_cls = same_class;
  uint16_t size16 = 0;          // bytes on the wire; wide_size: size_or_seq has them (a kept frame)
  uint32_t id_low = 0;          // the frame id (a held frame's is below 2^32)
  uint32_t size_or_seq = 0;     // a held frame's seq; a kept frame's size when it is wide
  uint32_t flow_and_flags = 0;  // flow_id | (flags | ecn << 4) << 24 (flags right for every frame: kept_payload)
  uint32_t age_at_ready = 0;    // ready_ps - created_ps

  static constexpr uint64_t low48 = (uint64_t{1} << 48) - 1;
  static constexpr uint32_t flow_mask = queued_flow_ends::max_flows - 1;
  static constexpr uint32_t wide_size = 0xFFFF;
  static constexpr uint32_t node_bits = 24;  // a flow's ends in its table entry: src | dst << 24 | overhead << 48
  uint8_t flags() const { return static_cast<uint8_t>(flow_and_flags >> 24); }
  void add_flags(uint8_t f) { flow_and_flags |= uint32_t{f} << 24; }
  // Bytes on the wire, of any frame (a frame of 64 KiB or more is kept, its size in size_or_seq).
  uint32_t size() const { return size16 != wide_size ? size16 : size_or_seq; }

  // Writes f's descriptor; false if f is not a data frame or a field does not fit: the fields the
  // queue reads (ready_ps, size, ingress, flags) are right either way, and such a frame keeps its
  // payload.
  bool pack(const frame_fields& f) {
    // Each field read once, before the writes (the compiler cannot tell that f and *this do not
    // overlap).
    const uint64_t ready = f.ready_ps, seq = f.seq, age = ready - f.created_ps;  // wraps if created later
    const uint32_t flow = f.flow_id, size = f.size, ecn = f.ecn, flags = f.flags, src = f.src, dst = f.dst;
    const uint32_t overhead = size - f.payload;  // wraps if the payload is larger
    uint64_t same_bytes;                         // ingress_port .. ingress_cls, and id_high on top
    std::memcpy(&same_bytes, &f.ingress_port, sizeof same_bytes);
    const bool wide = size >= wide_size;
    static_assert(static_cast<int>(frame_kind::data) == 0, "a kind other than data is refused by its bits");
    const uint64_t dropped = seq >> 32 | age >> 32 | flow >> 24 | same_bytes >> 48 | ecn >> 2 | (flags & 0xF0) |
                             uint64_t{wide} | f.cp_tag | static_cast<uint8_t>(f.kind) | src >> node_bits |
                             dst >> node_bits | overhead >> 16;
    ready_ps = ready;
    same_bytes = (same_bytes & low48) | uint64_t{wide ? wide_size : size} << 48;
    std::memcpy(&ingress_port, &same_bytes, sizeof same_bytes);
    id_low = f.id_low;
    size_or_seq = wide ? size : static_cast<uint32_t>(seq);
    flow_and_flags = (flow & flow_mask) | (flags | (ecn & 3) << 4) << 24;
    age_at_ready = static_cast<uint32_t>(age);
    return dropped == 0 &&
           queued_flow_ends::known(flow, src | uint64_t{dst} << node_bits | uint64_t{overhead} << 2 * node_bits);
  }
  // The fields of a frame pack accepted, queued in class cls.
  void unpack(int cls, frame_fields& f) const {
    const uint64_t ready = ready_ps;
    const uint32_t fl = flow_and_flags, flow = fl & flow_mask;
    const uint64_t ends = queued_flow_ends::table[flow];
    uint64_t same_bytes;
    std::memcpy(&same_bytes, &ingress_port, sizeof same_bytes);
    const uint32_t sz = static_cast<uint32_t>(same_bytes >> 48), low = id_low, seq = size_or_seq, age = age_at_ready;
    same_bytes &= low48;  // the id's upper half: 0
    constexpr uint32_t node_mask = (1u << node_bits) - 1;
    f.kind = frame_kind::data;
    f.priority = static_cast<uint8_t>(cls);
    f.ecn = static_cast<uint8_t>(fl >> 28 & 3);
    f.flags = static_cast<uint8_t>(fl >> 24 & 0x0F);
    f.flow_id = flow;
    f.src = static_cast<uint32_t>(ends) & node_mask;
    f.dst = static_cast<uint32_t>(ends >> node_bits) & node_mask;
    f.size = sz;
    f.payload = sz - static_cast<uint32_t>(ends >> 2 * node_bits);
    std::memcpy(&f.ingress_port, &same_bytes, sizeof same_bytes);
    f.cp_tag = 0;
    f.id_low = low;
    f.seq = seq;
    f.created_ps = ready - age;
    f.ready_ps = ready;
  }
};
// The bytes copied whole lie alike in both.
static_assert(offsetof(frame_fields, id_high) - offsetof(frame_fields, ingress_port) == 6 &&
              offsetof(queued_frame, size16) - offsetof(queued_frame, ingress_port) == 6 &&
              offsetof(frame_fields, hops) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, hops) - offsetof(queued_frame, ingress_port) &&
              offsetof(frame_fields, path) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, path) - offsetof(queued_frame, ingress_port) &&
              offsetof(frame_fields, sl) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, sl) - offsetof(queued_frame, ingress_port) &&
              offsetof(frame_fields, ingress_cls) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, ingress_cls) - offsetof(queued_frame, ingress_port));
static_assert(sizeof(queued_frame) == 32, "a queued frame's descriptor is 32 bytes (docs/scale.md)");
static_assert(sizeof(frame_fields) == 64, "pack and unpack name every field of frame_fields");

}  // namespace sluice
