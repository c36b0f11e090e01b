#include "models/core/model_signal.h"

#include "models/core/event_queue.h"

namespace sluice {

const sc_core::sc_event& model_signal::event() {
  if (!event_) event_ = std::make_unique<sc_core::sc_event>();
  return *event_;
}

void model_signal::notify() {
  event_queue::instance().sync();  // first: a windowed run refuses it before the kernel is touched
  event_->notify(ahead());         // a zero delay is a delta notification: after this drain ends
}

}  // namespace sluice
