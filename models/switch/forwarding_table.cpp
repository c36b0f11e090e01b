#include "models/switch/forwarding_table.h"

namespace sluice {

void forwarding_table::set_route(uint32_t dst, std::vector<uint16_t> ports) {
  if (dst >= routes_.size()) routes_.resize(dst + 1);
  routes_[dst] = std::move(ports);
}

const std::vector<uint16_t>& forwarding_table::ports(uint32_t dst) const {
  static const std::vector<uint16_t> none;
  return dst < routes_.size() ? routes_[dst] : none;
}

}  // namespace sluice
