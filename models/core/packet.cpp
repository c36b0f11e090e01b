#include "models/core/packet.h"

namespace sluice {

packet_pool& packet_pool::instance() {
  static packet_pool pool;
  return pool;
}

tlm::tlm_generic_payload* packet_pool::acquire(bool with_image) {
  std::vector<pooled_payload*>& list = with_image ? free_control_ : free_;
  if (list.empty()) {
    all_.push_back(std::make_unique<pooled_payload>(this));
    if (with_image) all_.back()->own.image = new frame_image;
    list.push_back(all_.back().get());
  }
  pooled_payload* p = list.back();
  list.pop_back();
  p->own.reset();
  p->own.set_id(next_id_++);
  p->acquire();
  return p;
}

tlm::tlm_generic_payload* packet_pool::acquire_queued(const frame_fields& f) {
  if (free_.empty()) {
    all_.push_back(std::make_unique<pooled_payload>(this));
    free_.push_back(all_.back().get());
  }
  pooled_payload* p = free_.back();
  free_.pop_back();
  p->own.fields() = f;
  p->acquire();
  return p;
}

void packet_pool::free(tlm::tlm_generic_payload* p) {
  auto* pp = static_cast<pooled_payload*>(p);
  (pp->own.image ? free_control_ : free_).push_back(pp);
}

tlm::tlm_generic_payload* make_feedback_frame(frame_kind kind, const packet_header& about, uint32_t from,
                                              uint64_t now_ps) {
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire(true);
  packet_header& h = header(*p);
  h.kind = kind;
  h.priority = about.priority;
  h.flow_id = about.flow_id;
  h.src = from;
  h.dst = about.src;
  h.created_ps = now_ps;
  return p;
}

}  // namespace sluice
