// A frame in a switch egress queue: its descriptor, 40 bytes where the frame's fields are 64.
//
// A congested fabric's memory is mostly these descriptors (a 10 240-host leaf-spine holds
// millions of queued frames after 1 ms of its permutation; docs/scale.md), so each field takes
// the width real frames need: a byte offset within a flow below 2^48, a frame younger than
// 2^32 ps (4.3 ms) when it clears the pipeline, a flow id below 2^24, a payload below 16 KiB, a
// 2-bit ECN code point, and no ECM CPID tag. Only data frames are held this way, and their
// source and destination are their flow's (queued_flow_ends below), not stored. A frame outside
// these (pack returns false) keeps its payload beside the descriptor, as frames with a wire image
// do (egress_port's kept_payload), so every frame leaves with exactly the fields it came with.
// The priority is the queue's class.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "models/core/packet.h"

namespace sluice {

// The source and destination of each flow, by flow id (src | dst << 32), learnt from the first
// data frame of the flow a switch queues: a data frame's descriptor then holds neither (48 bits
// of every queued frame; docs/scale.md, eleventh round). One table for the process, as flow ids
// are the run's: a frame whose ends differ from its flow's (a test's hand-made frame) is not
// held as a descriptor, so nothing depends on what was learnt first.
namespace queued_flow_ends {
constexpr uint32_t max_flows = 1u << 24;  // the descriptor's flow id bits
constexpr uint64_t unknown = ~uint64_t{0};
// Hidden: read on every queued frame, without the GOT's load (event_queue.h's clock does the same).
[[gnu::visibility("hidden")]] inline uint64_t* table = nullptr;
[[gnu::visibility("hidden")]] inline uint32_t count = 0;
// Records ends as flow's if it has none yet (growing the table); true if flow's ends are now ends.
[[gnu::noinline, gnu::cold]] bool learn(uint32_t flow, uint64_t ends);
inline bool known(uint32_t flow, uint64_t ends) { return (flow < count && table[flow] == ends) || learn(flow, ends); }
}  // namespace queued_flow_ends

struct queued_frame {
  // Read by the queue itself (scheduling, the congestion point's view, the buffer's return) and
  // copied whole where frame_fields has the same bytes in the same order (one 8-byte move each).
  uint64_t ready_ps = 0;  // when the frame clears the forwarding pipeline
  uint16_t ingress_port = no_ingress;
  uint8_t hops = 0, path = 0, sl = 0;
  uint8_t ingress_cls = same_class;
  uint16_t id_high = 0;
  uint32_t size = 0;  // bytes on the wire
  uint32_t id_low = 0;
  uint32_t flow_and_flags = 0;   // flow_id | flags << 24 (flags right for every frame: kept_payload)
  uint32_t age_at_ready = 0;     // ready_ps - created_ps
  uint64_t seq_payload_ecn = 0;  // seq | payload << 48 | ecn << 62

  static constexpr uint64_t low48 = (uint64_t{1} << 48) - 1;
  static constexpr uint32_t flow_mask = queued_flow_ends::max_flows - 1;
  uint8_t flags() const { return static_cast<uint8_t>(flow_and_flags >> 24); }
  void add_flags(uint8_t f) { flow_and_flags |= uint32_t{f} << 24; }

  // Writes f's descriptor; false if f is not a data frame or a field does not fit: the fields the
  // queue reads (ready_ps, size, ingress, flags) are right either way, and such a frame keeps its
  // payload.
  bool pack(const frame_fields& f) {
    // Each field read once, before the writes (the compiler cannot tell that f and *this do not
    // overlap).
    const uint64_t ready = f.ready_ps, seq = f.seq, age = ready - f.created_ps;  // wraps if created later
    const uint32_t flow = f.flow_id, payload = f.payload, ecn = f.ecn;
    const uint64_t ends = f.src | uint64_t{f.dst} << 32;
    uint64_t same_bytes;  // ingress_port .. id_high
    std::memcpy(&same_bytes, &f.ingress_port, sizeof same_bytes);
    static_assert(static_cast<int>(frame_kind::data) == 0, "a kind other than data is refused by its bits");
    const uint64_t dropped =
        seq >> 48 | age >> 32 | flow >> 24 | payload >> 14 | ecn >> 2 | f.cp_tag | static_cast<uint8_t>(f.kind);
    ready_ps = ready;
    std::memcpy(&ingress_port, &same_bytes, sizeof same_bytes);
    size = f.size;
    id_low = f.id_low;
    flow_and_flags = (flow & flow_mask) | uint32_t{f.flags} << 24;
    age_at_ready = static_cast<uint32_t>(age);
    seq_payload_ecn = seq | uint64_t{payload} << 48 | uint64_t{ecn} << 62;
    return dropped == 0 && queued_flow_ends::known(flow, ends);
  }
  // The fields of a frame pack accepted, queued in class cls.
  void unpack(int cls, frame_fields& f) const {
    const uint64_t ready = ready_ps, spe = seq_payload_ecn;
    const uint32_t fl = flow_and_flags, flow = fl & flow_mask;
    const uint64_t ends = queued_flow_ends::table[flow];
    uint64_t same_bytes;
    std::memcpy(&same_bytes, &ingress_port, sizeof same_bytes);
    const uint32_t sz = size, low = id_low, age = age_at_ready;
    f.kind = frame_kind::data;
    f.priority = static_cast<uint8_t>(cls);
    f.ecn = static_cast<uint8_t>(spe >> 62);
    f.flags = static_cast<uint8_t>(fl >> 24);
    f.flow_id = flow;
    f.src = static_cast<uint32_t>(ends);
    f.dst = static_cast<uint32_t>(ends >> 32);
    f.size = sz;
    f.payload = static_cast<uint32_t>(spe >> 48 & 0x3FFF);
    std::memcpy(&f.ingress_port, &same_bytes, sizeof same_bytes);
    f.cp_tag = 0;
    f.id_low = low;
    f.seq = spe & low48;
    f.created_ps = ready - age;
    f.ready_ps = ready;
  }
};
// The bytes copied whole lie alike in both.
static_assert(offsetof(frame_fields, id_high) - offsetof(frame_fields, ingress_port) == 6 &&
              offsetof(queued_frame, id_high) - offsetof(queued_frame, ingress_port) == 6 &&
              offsetof(frame_fields, hops) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, hops) - offsetof(queued_frame, ingress_port) &&
              offsetof(frame_fields, path) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, path) - offsetof(queued_frame, ingress_port) &&
              offsetof(frame_fields, sl) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, sl) - offsetof(queued_frame, ingress_port) &&
              offsetof(frame_fields, ingress_cls) - offsetof(frame_fields, ingress_port) ==
                  offsetof(queued_frame, ingress_cls) - offsetof(queued_frame, ingress_port));
static_assert(sizeof(queued_frame) == 40, "a queued frame's descriptor is 40 bytes (docs/scale.md)");
static_assert(sizeof(frame_fields) == 64, "pack and unpack name every field of frame_fields");

}  // namespace sluice
