#include "models/core/packet.h"

namespace sluice {

packet_pool& packet_pool::instance() {
  static packet_pool pool;
  return pool;
}

tlm::tlm_generic_payload* packet_pool::acquire() {
  if (free_.empty()) {
    auto p = std::make_unique<pooled_payload>(this);
    p->hdr = new packet_header;
    p->set_extension(p->hdr);  // owned by the payload from here on
    free_.push_back(p.get());
    all_.push_back(std::move(p));
  }
  tlm::tlm_generic_payload* p = free_.back();
  free_.pop_back();
  header(*p).reset();
  p->acquire();
  return p;
}

void packet_pool::free(tlm::tlm_generic_payload* p) { free_.push_back(p); }

}  // namespace sluice
