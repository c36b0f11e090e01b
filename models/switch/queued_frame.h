// A frame in a switch egress queue: its descriptor, 48 bytes where the frame's fields are 64.
//
// A congested fabric's memory is mostly these descriptors (a 10 240-host leaf-spine holds
// millions of queued frames after 1 ms of its permutation; docs/scale.md), so each field takes
// the width real frames need: a byte offset within a flow below 2^48, a frame younger than
// 2^32 ps (4.3 ms) when it clears the pipeline, node ids below 2^24, a payload below 64 KiB,
// and no ECM CPID tag. A frame outside these (pack returns false) keeps its payload beside the
// descriptor, as frames with a wire image do (egress_port's kept_payload), so every frame
// leaves with exactly the fields it came with. The priority is the queue's class.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "models/core/packet.h"

namespace sluice {

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
  uint32_t flow_id = 0;
  uint32_t age_at_ready = 0;     // ready_ps - created_ps
  uint64_t seq_and_payload = 0;  // seq | payload << 48
  // src | dst << 24 | kind << 48 | ecn << 52 | flags << 56 (a kind is below max_frame_kinds = 16)
  uint64_t ends_and_kind = 0;

  static constexpr uint64_t low48 = (uint64_t{1} << 48) - 1;
  uint8_t flags() const { return static_cast<uint8_t>(ends_and_kind >> 56); }
  void add_flags(uint8_t f) { ends_and_kind |= uint64_t{f} << 56; }

  // Writes f's descriptor; false if a field does not fit: the fields the queue reads are right
  // either way, and such a frame keeps its payload.
  bool pack(const frame_fields& f) {
    // Each field read once, before the writes (the compiler cannot tell that f and *this do not
    // overlap).
    const uint64_t ready = f.ready_ps, seq = f.seq, age = ready - f.created_ps;  // wraps if created later
    const uint32_t src = f.src, dst = f.dst, payload = f.payload;
    const uint8_t kind = static_cast<uint8_t>(f.kind), ecn = f.ecn;
    uint64_t same_bytes;  // ingress_port .. id_high
    std::memcpy(&same_bytes, &f.ingress_port, sizeof same_bytes);
    const uint64_t dropped = seq >> 48 | age >> 32 | (src | dst) >> 24 | payload >> 16 | f.cp_tag | (kind | ecn) >> 4;
    ready_ps = ready;
    std::memcpy(&ingress_port, &same_bytes, sizeof same_bytes);
    size = f.size;
    id_low = f.id_low;
    flow_id = f.flow_id;
    age_at_ready = static_cast<uint32_t>(age);
    seq_and_payload = seq | uint64_t{payload} << 48;
    ends_and_kind = src | uint64_t{dst} << 24 | uint64_t{kind} << 48 | uint64_t{ecn} << 52 | uint64_t{f.flags} << 56;
    return dropped == 0;
  }
  // The fields of a frame pack accepted, queued in class cls.
  void unpack(int cls, frame_fields& f) const {
    const uint64_t ready = ready_ps, seq_pay = seq_and_payload, ends = ends_and_kind;
    uint64_t same_bytes;
    std::memcpy(&same_bytes, &ingress_port, sizeof same_bytes);
    const uint32_t sz = size, low = id_low, flow = flow_id, age = age_at_ready;
    f.kind = static_cast<frame_kind>(ends >> 48 & 0xF);
    f.priority = static_cast<uint8_t>(cls);
    f.ecn = static_cast<uint8_t>(ends >> 52 & 0xF);
    f.flags = static_cast<uint8_t>(ends >> 56);
    f.flow_id = flow;
    f.src = static_cast<uint32_t>(ends & 0xFFFFFF);
    f.dst = static_cast<uint32_t>(ends >> 24 & 0xFFFFFF);
    f.size = sz;
    f.payload = static_cast<uint32_t>(seq_pay >> 48);
    std::memcpy(&f.ingress_port, &same_bytes, sizeof same_bytes);
    f.cp_tag = 0;
    f.id_low = low;
    f.seq = seq_pay & low48;
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
static_assert(sizeof(queued_frame) == 48, "a queued frame's descriptor is 48 bytes (docs/scale.md)");
static_assert(sizeof(frame_fields) == 64, "pack and unpack name every field of frame_fields");

}  // namespace sluice
