#include "models/core/packet.h"

#include <algorithm>
#include <mutex>
#include <new>
#include <sstream>
#include <systemc>
#include <vector>

namespace sluice {

packet_pool packet_pool::pool_;

// A payload fits its room, and rooms from a line's byte 8 on are aligned for it. The two places
// in a line assume TLM's payload of 136 bytes (its memory manager and reference count last).
static_assert(sizeof(pooled_payload) <= packet_pool::payload_room_bytes && packet_pool::payload_room_bytes % 64 == 32 &&
              alignof(pooled_payload) <= 8 && sizeof(tlm::tlm_generic_payload) == 136);

unsigned char* packet_pool::room(std::size_t i) const {
  const auto block = reinterpret_cast<std::uintptr_t>(blocks_[i / payloads_per_block].get());
  return reinterpret_cast<unsigned char*>((block + 63) / 64 * 64 + block_offset) +
         i % payloads_per_block * payload_room_bytes;
}

pooled_payload* packet_pool::make_payload() {
  if (made_ % payloads_per_block == 0)  // a line more, to start the rooms at a line's byte 8
    blocks_.emplace_back(new unsigned char[payloads_per_block * payload_room_bytes + 64]);
  auto* p = new (room(made_++)) pooled_payload(restoring_ ? static_cast<tlm::tlm_mm_interface*>(&restorer_) : this);
  p->set_response_status(tlm::TLM_OK_RESPONSE);  // as a receiver leaves it (socket_crossed)
  return p;
}

pooled_payload* packet_pool::made(std::size_t i) const {
  return std::launder(reinterpret_cast<pooled_payload*>(room(i)));
}

packet_pool::~packet_pool() {
  for (std::size_t i = 0; i < made_; ++i) made(i)->~pooled_payload();
}

void packet_pool::grow(pooled_payload*& list, bool with_image) {
  pooled_payload& n = *make_payload();
  // A posted write (see packet.h); these fields never change afterwards.
  n.set_command(tlm::TLM_WRITE_COMMAND);
  n.set_address(0);
  n.set_byte_enable_ptr(nullptr);
  n.set_byte_enable_length(0);
  n.set_dmi_allowed(false);
  if (with_image) {
    n.own.image = new frame_image;
    n.set_data_ptr(n.own.image->data());
    n.set_streaming_width(max_image_bytes);
  } else {
    n.set_data_ptr(nullptr);
    n.set_streaming_width(0);
  }
  n.set_data_length(0);
  push(list, &n);
}

void packet_pool::add_free() { push(free_, make_payload()); }

// To the pool of the thread that frees it, whichever made it: a thread's lists are its own.
void packet_pool::free(tlm::tlm_generic_payload* p) {
  auto* pp = static_cast<pooled_payload*>(p);
  packet_pool& to = instance();
  push(pp->own.image ? to.free_control_ : to.free_, pp);
}

namespace {
// Every pool of the process: the first, and one per lane thread of a windowed run, never freed
// (their payloads move between the threads' free lists and live as long as the process).
std::vector<packet_pool*>& all_pools() {
  static std::vector<packet_pool*> pools{&packet_pool::instance()};
  return pools;
}
std::mutex& pools_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

void packet_pool::use_own_on_this_thread(uint32_t index, uint32_t of) {
  auto* pool = new packet_pool;
  pool->next_id_ = uint64_t{index} * ((uint64_t{1} << 32) / std::max(of, 1u)) + 1;
  {
    std::lock_guard<std::mutex> hold(pools_mutex());
    all_pools();  // the first pool listed before this thread's is current
    pool->restoring_ = pool_.restoring_;
    all_pools().push_back(pool);
  }
  current_ = pool;
}

std::size_t packet_pool::allocated_by_all() {
  std::lock_guard<std::mutex> hold(pools_mutex());
  std::size_t n = 0;
  for (const packet_pool* p : all_pools()) n += p->allocated();
  return n;
}

// Every pool's payloads: a payload crossing a socket may be one another thread's pool made.
void packet_pool::restore_all_statuses() {
  std::lock_guard<std::mutex> hold(pools_mutex());
  for (packet_pool* p : all_pools())
    if (!p->restoring_) p->restore_statuses();
}

void packet_pool::restore_statuses() {
  restoring_ = true;
  for (std::size_t i = 0; i < made_; ++i) made(i)->set_mm(&restorer_);
}

void packet_pool::status_restorer::free(tlm::tlm_generic_payload* p) {
  p->set_response_status(tlm::TLM_OK_RESPONSE);
  packet_pool::instance().free(p);
}

void refuse_foreign_payload(const tlm::tlm_generic_payload& p) {
  std::ostringstream m;
  m << "a frame on a Sluice link must come from sluice::packet_pool (it carries the packet_header); this "
       "tlm_generic_payload (at "
    << static_cast<const void*>(&p) << ", type " << typeid(p).name() << (p.has_mm() ? ", its own memory manager" : "")
    << ") is a foreign model's: give it a pooled payload (packet_pool::instance().acquire())";
  SC_REPORT_ERROR("sluice/link_protocol", m.str().c_str());
  std::abort();  // only if the error action was changed from throwing
}

tlm::tlm_generic_payload* make_feedback_frame(frame_kind kind, const packet_header& about, uint32_t from,
                                              uint64_t now_ps) {
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire(true);
  packet_header& h = header(*p);
  h.kind = kind;
  h.priority = about.priority;
  h.flow_id = about.flow_id;
  h.path = about.path;  // the path the notification is about (a CNM's encapsulated VLAN tag)
  h.src = from;
  h.dst = about.src;
  h.created_ps = now_ps;
  return p;
}

}  // namespace sluice
