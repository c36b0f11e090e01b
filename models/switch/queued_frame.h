// A frame in a switch egress queue: its descriptor, 32 bytes where the frame's fields are 64.
//
// A congested fabric's memory is mostly these descriptors (a 10 240-host leaf-spine holds
// millions of queued frames after 1 ms of its permutation; docs/scale.md), so each field takes
// the width real frames need: a byte offset within a flow below 2^32, a frame younger than
// 2^32 ps (4.3 ms) when it clears the pipeline, a flow id and a source below 2^24, a frame id
// below 2^32, a size below 64 KiB of which fewer than 256 bytes are header, a 2-bit ECN code
// point, four flag bits, and no ECM CPID tag. Only data
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

// The source, destination and header bytes of each flow, by flow id (src | (size - payload) << 24
// | dst << 32), learnt from the first data frame of the flow a switch queues: a data frame's
// descriptor then holds none of them (docs/scale-history.md, eleventh and twelfth rounds). A frame whose
// ends or header bytes differ from its flow's (a test's hand-made frame) is not held as a
// descriptor, so nothing depends on what was learnt first.
namespace queued_flow_ends {
constexpr uint32_t max_flows = 1u << 24;  // the descriptor's flow id bits
constexpr uint64_t unknown = ~uint64_t{0};
// Hidden: read on every queued frame, without the GOT's load (event_queue.h's clock does the same).
[[gnu::visibility("hidden")]] inline uint64_t* table = nullptr;
[[gnu::visibility("hidden")]] inline uint32_t count = 0;
// Records ends as flow's if it has none yet (growing the table); true if flow's ends are now ends.
[[gnu::noinline, gnu::cold]] bool learn(uint32_t flow, uint64_t ends);
// An entry, read as the atomic it is (a plain load on x86): with window threads (docs/parallel.md)
// two switches on two threads may learn one flow at once.
inline uint64_t entry(uint32_t flow) { return __atomic_load_n(&table[flow], __ATOMIC_RELAXED); }
inline bool known(uint32_t flow, uint64_t ends) { return (flow < count && entry(flow) == ends) || learn(flow, ends); }
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
  uint32_t flow_and_flags = 0;  // flow_id | (flags | ecn << 4) << 24 (kept_payload right for every frame)
  uint32_t age_at_ready = 0;    // ready_ps - created_ps

  static constexpr uint64_t low48 = (uint64_t{1} << 48) - 1;
  static constexpr uint32_t flow_mask = queued_flow_ends::max_flows - 1;
  static constexpr uint32_t wide_size = 0xFFFF;
  // A flow's table entry: src | header bytes << 24 | dst << 32, its ends as frame_fields holds them
  // (one 8-byte load) with the header bytes (size less payload, below 256) in src's top byte.
  static constexpr int header_shift = 24;
  uint8_t flags() const { return static_cast<uint8_t>(flow_and_flags >> 24); }
  void add_flags(uint8_t f) { flow_and_flags |= uint32_t{f} << 24; }
  // Bytes on the wire, of any frame (a frame of 64 KiB or more is kept, its size in size_or_seq).
  uint32_t size() const { return size16 != wide_size ? size16 : size_or_seq; }

  // Writes f's descriptor; false if f is not a data frame or a field does not fit: the fields the
  // queue reads (ready_ps, size, ingress, flags) are right either way, and such a frame keeps its
  // payload. Read as the words frame_fields lays out (kind, priority, ECN and flags in the first;
  // src and dst in one), tested with one OR of what must be zero.
  bool pack(const frame_fields& f) {
    // Each field read once, before the writes (the compiler cannot tell that f and *this do not
    // overlap).
    uint32_t head;              // kind | priority << 8 | ecn << 16 | flags << 24
    uint64_t ends, same_bytes;  // src | dst << 32; ingress_port .. ingress_cls, id_high on top
    std::memcpy(&head, &f.kind, sizeof head);
    std::memcpy(&ends, &f.src, sizeof ends);
    std::memcpy(&same_bytes, &f.ingress_port, sizeof same_bytes);
    const uint64_t ready = f.ready_ps, seq = f.seq, age = ready - f.created_ps;       // wraps if created later
    const uint32_t flow = f.flow_id, size = f.size, header_bytes = size - f.payload;  // wraps if payload > size
    static_assert(static_cast<int>(frame_kind::data) == 0, "a kind other than data is refused by its bits");
    constexpr uint32_t not_held = 0xFFu | 0xFCu << 16 | 0xF0u << 24;  // a kind, ECN above 3, flags above 15
    const uint64_t dropped = (head & not_held) | (seq | age) >> 32 | (flow | static_cast<uint32_t>(ends)) >> 24 |
                             same_bytes >> 48 | f.cp_tag | (uint64_t{size} + 1) >> 16 | header_bytes >> 8;
    const bool narrow = size < wide_size;
    ready_ps = ready;
    std::memcpy(&ingress_port, &same_bytes, sizeof same_bytes);
    size16 = static_cast<uint16_t>(narrow ? size : wide_size);  // over the id's upper half
    id_low = f.id_low;
    size_or_seq = narrow ? static_cast<uint32_t>(seq) : size;
    flow_and_flags = (flow & flow_mask) | (head & 0xFF000000u) | (head << 12 & 0x30000000u);  // ECN in flags' bits 4-5
    age_at_ready = static_cast<uint32_t>(age);
    return dropped == 0 && queued_flow_ends::known(flow, ends | uint64_t{header_bytes} << header_shift);
  }
  // The fields of a frame pack accepted, queued in class cls. Each field written as soon as it is
  // read (f is a pooled payload's header, never the descriptor), so that few registers are live.
  void unpack(int cls, frame_fields& __restrict f) const {
    const uint32_t fl = flow_and_flags;
    const uint64_t entry = queued_flow_ends::entry(fl & flow_mask);
    const uint32_t head = static_cast<uint32_t>(cls) << 8 | (fl >> 12 & 0x30000u) | (fl & 0x0F000000u);  // data: 0
    std::memcpy(&f.kind, &head, sizeof head);
    f.flow_id = fl & flow_mask;
    const uint64_t ends = entry & ~(uint64_t{0xFF} << header_shift);
    std::memcpy(&f.src, &ends, sizeof ends);
    f.size = size16;
    f.payload = size16 - static_cast<uint32_t>(entry >> header_shift & 0xFF);
    uint64_t same_bytes;
    std::memcpy(&same_bytes, &ingress_port, sizeof same_bytes);
    same_bytes &= low48;  // the id's upper half: 0
    std::memcpy(&f.ingress_port, &same_bytes, sizeof same_bytes);
    f.cp_tag = 0;
    f.id_low = id_low;
    f.seq = size_or_seq;
    f.created_ps = ready_ps - age_at_ready;
    f.ready_ps = ready_ps;
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
// The words pack and unpack move whole.
static_assert(offsetof(frame_fields, kind) == 0 && offsetof(frame_fields, priority) == 1 &&
                  offsetof(frame_fields, ecn) == 2 && offsetof(frame_fields, flags) == 3 &&
                  offsetof(frame_fields, dst) == offsetof(frame_fields, src) + 4,
              "pack reads kind..flags and src, dst as words");
static_assert(sizeof(queued_frame) == 32, "a queued frame's descriptor is 32 bytes (docs/scale.md)");
static_assert(sizeof(frame_fields) == 64, "pack and unpack name every field of frame_fields");

}  // namespace sluice
