// Packets: pooled tlm_generic_payloads carrying a packet_header extension.
//
// Each pooled payload owns its header extension for life; acquiring a packet resets the header
// instead of allocating. Ownership moves with the payload: whoever holds it calls release()
// when done (the payload's reference count returns it to the pool).
//
// The generic payload's standard fields describe a frame as a posted write: command
// TLM_WRITE_COMMAND, address 0 (a frame is addressed by its header's node ids, not by memory),
// no byte enables, and as data the wire image of a control frame (data frames carry none: the
// header describes their bytes). The transmitting MAC sets the response status to
// TLM_INCOMPLETE_RESPONSE and the data length (the image's wire size, 0 without an image) when it
// sends through a socket (not on a direct hop: direct_hops.h); the receiving MAC sets
// TLM_OK_RESPONSE when it takes a frame from its socket. The pool makes payloads with
// TLM_OK_RESPONSE and nothing but a socket changes it, so a direct hop's receiver need not write
// it (packet_pool::socket_crossed).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <tlm>
#include <typeinfo>
#include <vector>

#include "models/core/per_thread.h"

namespace sluice {

// Frame kinds. The codecs (bit layouts, wire sizes) live in models/protocol/. These are the
// shipped kinds and their fixed numbers; what a receiver does with a kind, and any further kind
// (a new scheme's feedback, numbered from shipped_frame_kinds on), is in the registry of frame
// kinds (frame_kinds.h), where the schemes register the feedback kinds they add.
enum class frame_kind : uint8_t {
  data,       // a flow's payload: Ethernet + 802.1Q + IPv4 + UDP + RoCEv2 BTH (or IB LRH + BTH)
  pfc,        // IEEE 802.1Qbb per-priority pause (link-local)
  cnm,        // IEEE 802.1Qau congestion notification message, CP -> source
  cnp,        // RoCEv2 congestion notification packet, NP -> source
  ack,        // transport acknowledgement, receiver -> source (RTT-based control)
  ib_credit,  // InfiniBand flow-control (credit) packet (link-local)
};
constexpr int shipped_frame_kinds = 6;
constexpr int max_frame_kinds = 16;  // bound of arrays indexed by kind

// The most traffic classes a fabric may have (InfiniBand: 16 VLs). A fabric's own count is a
// property of its ports (8 for PFC priorities); arrays indexed by class use this bound.
constexpr int max_classes = 16;

// Largest control-frame wire image carried (a CNM with 64 bytes of the sampled frame: 110 B).
constexpr std::size_t max_image_bytes = 128;
using frame_image = std::array<uint8_t, max_image_bytes>;

// Header flag bits.
namespace frame_flags {
constexpr uint8_t fecn = 1u << 0;    // IB BTH forward explicit congestion notification
constexpr uint8_t becn = 1u << 1;    // IB BTH backward explicit congestion notification
constexpr uint8_t probe = 1u << 2;   // QCN SONAR: a data frame the reaction point sent as a ping
constexpr uint8_t tcd_ue = 1u << 3;  // IB BTH reserved bit (BTH byte 4, mask 0x20): TCD's UE (CE is FECN)
// Switch-local, on a queued descriptor only (queued_frame in egress_port): its payload waits
// beside it. Never set in a frame's header, so no frame carries it.
constexpr uint8_t kept_payload = 1u << 7;
}  // namespace frame_flags

constexpr uint16_t no_ingress = 0xFFFF;  // a frame the switch made itself: outside MMU accounting
constexpr uint8_t same_class = 0xFF;     // ingress_cls: the frame kept its class across the switch

// A frame's fields, without the wire image: what a switch keeps of a queued frame (a
// descriptor, as switch ASICs keep descriptors apart from cells).
struct frame_fields {
  frame_kind kind = frame_kind::data;
  uint8_t priority = 0;                // traffic class: 802.1p priority (CEE) or service level (IB)
  uint8_t ecn = 0;                     // 2-bit ECN code point (IPv4 TOS)
  uint8_t flags = 0;                   // frame_flags
  uint32_t flow_id = 0;                // data: its flow; feedback (CNM, CNP, ACK): the flow it is about
  uint32_t src = 0, dst = 0;           // NIC node ids (feedback: from the CP/NP back to the source)
  uint32_t size = 0;                   // bytes on the wire
  uint32_t payload = 0;                // application bytes carried (0 for control frames)
  uint16_t ingress_port = no_ingress;  // switch-local: the port the frame came in on
  uint8_t hops = 0;                    // links crossed (a fabric's paths are far shorter than 255)
  uint8_t path = 0;                    // source-routed path id + 1, as an 802.1Q VID (0: untagged; R3C2)
  uint8_t sl = 0;                      // IB service level, end to end (priority is then the VL of the link)
  uint8_t ingress_cls = same_class;    // switch-local: the class it arrived on, if the switch changed it
  uint16_t id_high = 0;                // the frame id's upper 16 bits (see id())
  uint32_t cp_tag = 0;                 // ECM: the CPID tag of a rate-limited data frame (0: untagged; bcn_frame.h)
  uint32_t id_low = 0;                 // the frame id's lower 32 bits
  uint64_t seq = 0;                    // byte offset of the first payload byte within its flow
  uint64_t created_ps = 0;             // when the frame was built (ACK: echoes the data frame's)
  uint64_t ready_ps = 0;               // switch-local: when the frame clears the forwarding pipeline

  // The frame's id: unique in the run (48 bits, given by packet_pool::acquire in acquisition
  // order, so the same run gives the same ids), and kept across switches (a queued descriptor
  // carries it). Two halves fill the padding of this 64-byte descriptor.
  uint64_t id() const { return uint64_t{id_high} << 32 | id_low; }
  void set_id(uint64_t id) {
    id_high = static_cast<uint16_t>(id >> 32);
    id_low = static_cast<uint32_t>(id);
  }
};
static_assert(sizeof(frame_fields) == 64, "a queued descriptor is one cache line");

struct packet_header : tlm::tlm_extension<packet_header>, frame_fields {
  // Wire image of a control frame (from packet_pool::acquire(true)); null for data frames, which
  // are most frames in flight and need none.
  frame_image* image = nullptr;

  // Everything but the wire image (control frames write what they use).
  void reset() { fields() = frame_fields{}; }
  frame_fields& fields() { return *this; }
  const frame_fields& fields() const { return *this; }
  // Generic TLM tools may copy a header; the image stays with the pooled payload that owns it.
  tlm::tlm_extension_base* clone() const override {
    auto* c = new packet_header(*this);
    c->image = nullptr;
    return c;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    const auto& o = static_cast<const packet_header&>(other);
    fields() = o.fields();
    if (image && o.image) *image = *o.image;
  }
};

// Every payload in flight comes from packet_pool, which allocates this subclass: the header is
// reached at a fixed offset, without the extension lookup or a pointer to follow (it is also
// attached as an extension for generic tools). Payload and header are one allocation.
struct pooled_payload : tlm::tlm_generic_payload {
  explicit pooled_payload(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm) { set_extension(&own); }
  ~pooled_payload() override {
    clear_extension(&own);  // a member: the base class must not delete it
    delete own.image;
  }
  packet_header own;
};

class packet_pool : public tlm::tlm_mm_interface {
 public:
  // One pool per thread that runs models, reached without a call: a frame leaving a switch queue
  // takes a payload here (docs/scale-history.md, fifth memory round). The process's own, but for
  // a windowed run's other lanes (event_queue::run_in_windows), each with a pool of its own: a
  // payload freed goes to the pool of the thread that frees it.
  static packet_pool& instance() { return *current_; }
  // This thread takes payloads from a new pool of its own (lane `index` of `of`): its frame ids
  // start at index × 2^32 / of, so that ids stay distinct and below 2^32 (queued_frame.h).
  static void use_own_on_this_thread(uint32_t index, uint32_t of);
  // Payloads made by every pool of the process (a peak: the frames in flight at once).
  static std::size_t allocated_by_all();
  // Returns a payload with reference count 1 and a reset header; with_image: the header carries
  // a wire image (control frames).
  // Inline: once a control frame (a PFC frame, an ACK, a CNP); the call was a sixth of it.
  tlm::tlm_generic_payload* acquire(bool with_image = false) {
    pooled_payload*& list = with_image ? free_control_ : free_;
    if (__builtin_expect(list == nullptr, 0)) grow(list, with_image);
    pooled_payload* p = pop(list);
    p->own.reset();
    p->own.set_id(next_id_++);
    p->acquire();
    return p;
  }
  // A payload without an image for a frame that was queued as a descriptor: the caller writes
  // every field of its header (and so its id) from the descriptor. Inline: once per switch hop.
  tlm::tlm_generic_payload* acquire_queued() {
    if (free_ == nullptr) add_free();
    pooled_payload* p = pop(free_);
    p->acquire();
    return p;
  }
  // A payload without an image whose fields are f's under a new id, as acquire() then each field
  // written: a NIC keeps what all frames of a flow carry alike, and a data frame is that copy and
  // the four fields that change (tx_scheduler::build).
  tlm::tlm_generic_payload* acquire_as(const frame_fields& f) {
    if (__builtin_expect(free_ == nullptr, 0)) grow(free_, false);
    pooled_payload* p = pop(free_);
    p->own.fields() = f;
    p->own.set_id(next_id_++);
    p->acquire();
    return p;
  }
  // acquire_as will take a payload already made (no allocation).
  bool has_free() const { return free_ != nullptr; }
  // A payload crossed a socket (our MAC transmitted through one, a foreign model sent into our
  // link): it may come back to the pool with another status than TLM_OK_RESPONSE (a foreign
  // target's, or left by a partitioned run's shipper), so from now on every payload is released
  // through status_restorer, which restores it. A run on direct hops alone never crosses one: its
  // receivers never write the status (the line of the payload a hop touches for nothing else),
  // and its frees test nothing.
  void socket_crossed() {
    if (!restoring_) restore_all_statuses();
  }
  void free(tlm::tlm_generic_payload* p) override;
  std::size_t allocated() const { return made_; }
  // A payload's room in its block: 3.5 lines, so that every payload starts at one of two places
  // of a line (8 and 40 bytes in), where all a hop touches of it (TLM's memory manager and
  // reference count, the header, the image's pointer: 96 bytes) lies in two lines, not three.
  static constexpr std::size_t payload_room_bytes = 224;
  ~packet_pool() override;

 private:
  static packet_pool pool_;
  // Payloads are made in place in blocks that live as long as the pool: a payload in flight costs
  // its own bytes, not also malloc's header and a pointer in a list of all of them (≈ 24 bytes of
  // 250; the frames on a big fabric's wires are hundreds of thousands, docs/scale.md).
  static constexpr std::size_t payloads_per_block = 64;
  pooled_payload* make_payload();
  unsigned char* room(std::size_t i) const;   // the i-th payload's room
  pooled_payload* made(std::size_t i) const;  // the i-th payload made
  // The memory manager of every payload once one crossed a socket (socket_crossed).
  struct status_restorer : tlm::tlm_mm_interface {
    void free(tlm::tlm_generic_payload* p) override;
  };
  [[gnu::cold]] void restore_statuses();
  [[gnu::cold]] static void restore_all_statuses();
  static thread_local packet_pool* current_;
  [[gnu::noinline, gnu::cold]] void add_free();  // a new payload without an image on the free list
  // A new payload on `list`: a posted write (see above), with a wire image if with_image.
  void grow(pooled_payload*& list, bool with_image);
  // The free lists run through the free payloads' headers, which are dead (every acquire writes
  // all of a header's fields): the link is in a line a hop touches anyway, not in one of its own.
  static pooled_payload* pop(pooled_payload*& list) {
    pooled_payload* p = list;
    list = reinterpret_cast<pooled_payload*>(p->own.ready_ps);
    return p;
  }
  static void push(pooled_payload*& list, pooled_payload* p) {
    p->own.ready_ps = reinterpret_cast<std::uintptr_t>(list);
    list = p;
  }
  // Each payloads_per_block payloads' rooms, from a line's byte 8 on (block_offset).
  std::vector<std::unique_ptr<unsigned char[]>> blocks_;
  static constexpr std::size_t block_offset = 8;
  std::size_t made_ = 0;  // payloads made, the last block's first
  // Free payloads without and with an image, last freed first (as a vector's back was): lists
  // through the payloads themselves, so a free is two stores, with no capacity to test.
  pooled_payload* free_ = nullptr;
  pooled_payload* free_control_ = nullptr;
  uint64_t next_id_ = 1;  // 0: no id (a header not from the pool)
  status_restorer restorer_;
  bool restoring_ = false;  // the payloads' manager is restorer_ (socket_crossed)
};

SLUICE_PER_THREAD packet_pool* packet_pool::current_ = &packet_pool::pool_;

// A payload that did not come from the pool (a foreign model's plain tlm_generic_payload):
// reported as a model error naming the payload, never read as a header.
[[noreturn, gnu::cold]] void refuse_foreign_payload(const tlm::tlm_generic_payload& p);

// Refuses a payload that did not come from packet_pool (a foreign model's plain
// tlm_generic_payload): only a pooled_payload, made by packet_pool alone, has a header. The
// check compares the payload's dynamic type with pooled_payload (two loads from cache lines a
// frame touches anyway). It runs where a frame enters the models from outside: the link's and
// the MAC's TLM targets and the split-phase seams' answers (check_pooled calls there). Past
// those doors every frame is pooled, so header() reads without asking again.
inline void check_pooled(const tlm::tlm_generic_payload& p) {
  if (__builtin_expect(&typeid(p) != &typeid(pooled_payload), 0)) refuse_foreign_payload(p);
}

// The header of a frame inside the models (checked at the door: check_pooled).
inline packet_header& header(tlm::tlm_generic_payload& p) { return static_cast<pooled_payload&>(p).own; }
inline const packet_header& header(const tlm::tlm_generic_payload& p) {
  return header(const_cast<tlm::tlm_generic_payload&>(p));
}

// A feedback frame (CNM, CNP, ACK) about the data frame `about`, made by node `from` and
// addressed back to that frame's source, on its class and about its flow; it carries a wire
// image. The caller sets the size and writes the image.
tlm::tlm_generic_payload* make_feedback_frame(frame_kind kind, const packet_header& about, uint32_t from,
                                              uint64_t now_ps);

}  // namespace sluice
