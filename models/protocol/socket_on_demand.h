// A link socket made the first time it is used (bound, or asked for), not with its owner.
//
// Our own MACs and link directions meet on the direct hop (models/link/direct_hops.h) and need
// no socket between them: made for every MAC and link direction, the two sockets each holds
// cost 632 bytes and four named SystemC objects (their ports and exports, with the object
// table's entries and a name generator in the owner): 16 of the 79 MiB a built 1 024-host
// fabric took (docs/scale.md). A foreign model binds to it as to the socket itself
// (`mac.tx.bind(tap.in)`, `tap.out.bind(mac.rx)`); it is then made in its owner's scope, so it
// has the name and parent it always had ("h0.port0.mac.tx").
#pragma once
#include <memory>
#include <systemc>
#include <type_traits>

#include "models/protocol/packet_protocol.h"

namespace sluice {

template <typename socket_type>
class socket_on_demand {
 public:
  // A target socket is bound to `receiver` (its owner's forward path) when it is made.
  socket_on_demand(sc_core::sc_module& owner, const char* name,
                   tlm::tlm_fw_transport_if<packet_protocol_types>* receiver = nullptr)
      : owner_(owner), name_(name), receiver_(receiver) {}

  bool made() const { return socket_ != nullptr; }
  // The socket, made now if it was not (during elaboration, as any port).
  socket_type& get() {
    if (!socket_) make();
    return *socket_;
  }
  operator socket_type&() { return get(); }  // another socket binds to it

  // As the socket's own bind: to a socket, an interface or another socket on demand.
  template <typename other>
  void bind(other& to) {
    get().bind(unwrap(to));
  }
  template <typename other>
  void operator()(other& to) {
    bind(to);
  }

 private:
  template <typename s>
  static s& unwrap(socket_on_demand<s>& on_demand) {
    return on_demand.get();
  }
  template <typename any>
  static any& unwrap(any& to) {
    return to;
  }

  [[gnu::noinline]] void make() {
    // Made as the owner's child: SystemC names and parents an object by the module whose scope
    // is open, which is the owner's only while its constructor runs.
    sc_core::sc_simcontext* context = sc_core::sc_get_curr_simcontext();
    context->hierarchy_push(&owner_);
    try {
      socket_ = std::make_unique<socket_type>(name_);
    } catch (...) {
      context->hierarchy_pop();
      throw;
    }
    context->hierarchy_pop();
    if constexpr (std::is_same_v<socket_type, frame_in_socket>) socket_->bind(*receiver_);
  }

  sc_core::sc_module& owner_;
  const char* name_;  // a literal
  tlm::tlm_fw_transport_if<packet_protocol_types>* receiver_;
  std::unique_ptr<socket_type> socket_;
};

}  // namespace sluice
