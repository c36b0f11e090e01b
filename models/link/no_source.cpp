// The source of a MAC port attached to none (mac_port.h's no_frames), out of mac_port.cpp's
// view: see there.
#include "models/link/mac_port.h"

namespace sluice {
namespace {

class no_source final : public frame_source_if {
 public:
  tlm::tlm_generic_payload* next_frame(uint64_t, uint64_t&) override { return nullptr; }
  uint64_t next_ready_ps(uint64_t now_ps) const override { return now_ps; }  // as a control frame: look when free
};
no_source none;

}  // namespace

frame_source_if& no_frames = none;

}  // namespace sluice
