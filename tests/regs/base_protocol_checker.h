// A TLM-2.0 base-protocol checker (IEEE 1666-2011, clauses 15 and 16), placed between an
// initiator and a target: it forwards every call both ways and counts the rule violations it
// sees. Debian's SystemC ships none. Checked, for the transactions that pass through it:
// - phases: an initiator sends only BEGIN_REQ and END_RESP, a target only END_REQ and BEGIN_RESP;
//   each transaction's phases in order (BEGIN_REQ, END_REQ, BEGIN_RESP, END_RESP; BEGIN_RESP
//   implies END_REQ; TLM_COMPLETED ends it at any phase);
// - return values: to BEGIN_REQ, TLM_ACCEPTED leaves the phase, TLM_UPDATED moves it to END_REQ
//   or BEGIN_RESP; to END_RESP, the target answers TLM_COMPLETED; to END_REQ, the initiator
//   answers TLM_ACCEPTED;
// - exclusion: one request (BEGIN_REQ not yet ended) and one response (BEGIN_RESP not yet
//   ended) in progress per socket pair at a time;
// - timing: a transaction's phases at non-decreasing times (sc_time_stamp() + delay); b_transport
//   returns no earlier than it was called (by the same measure);
// - the payload: the initiator sets TLM_INCOMPLETE_RESPONSE before it sends; the target sets
//   another status before responding (or completing); command, address, data pointer and length,
//   byte enables and streaming width reach the initiator as it set them; a transaction is not
//   sent again while in flight;
// - debug transport returns no more than the data length; DMI answers false with DMI not allowed.
#pragma once
#include <map>
#include <sstream>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace sluice::test {

class base_protocol_checker : public sc_core::sc_module,
                              public tlm::tlm_fw_transport_if<>,
                              public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<32> from_initiator;
  tlm::tlm_initiator_socket<32> to_target;

  explicit base_protocol_checker(sc_core::sc_module_name name)
      : sc_module(name), from_initiator("from_initiator"), to_target("to_target") {
    from_initiator.bind(*this);
    to_target.bind(*this);
  }

  uint64_t errors() const { return errors_; }
  uint64_t transactions() const { return transactions_; }
  const std::vector<std::string>& messages() const { return messages_; }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    if (phase == tlm::BEGIN_REQ) {
      if (flight_.count(&t)) error("BEGIN_REQ of a transaction already in flight");
      if (request_) error("BEGIN_REQ while another request is in progress (request exclusion)");
      if (t.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE) error("BEGIN_REQ without TLM_INCOMPLETE_RESPONSE");
      ++transactions_;
      flight_[&t] = state{tlm::BEGIN_REQ, at, snapshot(t)};
      request_ = &t;
    } else if (phase == tlm::END_RESP) {
      state* s = find(t, "END_RESP");
      if (s && s->phase != tlm::BEGIN_RESP) error("END_RESP before BEGIN_RESP");
      if (response_ != &t) error("END_RESP of a transaction whose response is not in progress");
      if (s) advance(*s, tlm::END_RESP, at);
    } else {
      error("the initiator sent phase " + phase_name(phase) + " (only BEGIN_REQ and END_RESP are its)");
    }
    const tlm::tlm_phase sent = phase;
    const tlm::tlm_sync_enum r = to_target->nb_transport_fw(t, phase, delay);
    const sc_core::sc_time back = sc_core::sc_time_stamp() + delay;
    if (back < at) error("nb_transport_fw returned an earlier time than it was called with");
    if (sent == tlm::END_RESP) {
      if (r != tlm::TLM_COMPLETED) error("the target did not answer END_RESP with TLM_COMPLETED");
      response_ = nullptr;
      finish(t);
      return r;
    }
    if (sent != tlm::BEGIN_REQ) return r;
    state& s = flight_[&t];
    if (r == tlm::TLM_ACCEPTED) {
      if (phase != tlm::BEGIN_REQ) error("TLM_ACCEPTED with the phase changed");
    } else if (r == tlm::TLM_UPDATED) {
      if (phase == tlm::END_REQ) {
        request_ = nullptr;
        advance(s, tlm::END_REQ, back);
      } else if (phase == tlm::BEGIN_RESP) {
        request_ = nullptr;
        begin_response(t, s, back);
      } else {
        error("TLM_UPDATED to BEGIN_REQ with phase " + phase_name(phase));
      }
    } else {  // TLM_COMPLETED: the transaction is over
      if (request_ == &t) request_ = nullptr;
      if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) error("TLM_COMPLETED without a response status");
      finish(t);
    }
    return r;
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    state* s = find(t, phase_name(phase));
    const tlm::tlm_phase sent = phase;
    if (phase == tlm::END_REQ) {
      if (s && s->phase != tlm::BEGIN_REQ) error("END_REQ after " + phase_name(s->phase));
      if (request_ != &t) error("END_REQ of a transaction whose request is not in progress");
      request_ = nullptr;
      if (s) advance(*s, tlm::END_REQ, at);
    } else if (phase == tlm::BEGIN_RESP) {
      if (s && s->phase != tlm::BEGIN_REQ && s->phase != tlm::END_REQ)
        error("BEGIN_RESP after " + phase_name(s->phase));
      if (request_ == &t) request_ = nullptr;  // BEGIN_RESP implies END_REQ
      if (s) begin_response(t, *s, at);
    } else {
      error("the target sent phase " + phase_name(phase) + " (only END_REQ and BEGIN_RESP are its)");
    }
    const tlm::tlm_sync_enum r = from_initiator->nb_transport_bw(t, phase, delay);
    if (sent == tlm::END_REQ && r != tlm::TLM_ACCEPTED) error("the initiator did not answer END_REQ with TLM_ACCEPTED");
    if (sent == tlm::BEGIN_RESP && (r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && phase == tlm::END_RESP))) {
      response_ = nullptr;
      finish(t);
    }
    return r;
  }

  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) override {
    if (flight_.count(&t)) error("b_transport of a transaction in flight on the non-blocking path");
    if (t.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE) error("b_transport without TLM_INCOMPLETE_RESPONSE");
    ++transactions_;
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    const attributes before = snapshot(t);
    to_target->b_transport(t, delay);
    if (sc_core::sc_time_stamp() + delay < at) error("b_transport returned at an earlier time than it was called");
    if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) error("b_transport returned no response status");
    if (!(snapshot(t) == before)) error("the target changed a payload attribute it must not");
  }

  unsigned int transport_dbg(tlm::tlm_generic_payload& t) override {
    const unsigned int n = to_target->transport_dbg(t);
    if (n > t.get_data_length()) error("transport_dbg returned more than the data length");
    return n;
  }

  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) override {
    const bool granted = to_target->get_direct_mem_ptr(t, dmi);
    if (!granted && t.is_dmi_allowed()) error("DMI refused with the DMI hint set");
    return granted;
  }

  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override {
    from_initiator->invalidate_direct_mem_ptr(start, end);
  }

 private:
  struct attributes {
    tlm::tlm_command command;
    sc_dt::uint64 address;
    unsigned char* data;
    unsigned int length, streaming_width, byte_enable_length;
    unsigned char* byte_enable;
    bool operator==(const attributes& o) const {
      return command == o.command && address == o.address && data == o.data && length == o.length &&
             streaming_width == o.streaming_width && byte_enable_length == o.byte_enable_length &&
             byte_enable == o.byte_enable;
    }
  };
  struct state {
    tlm::tlm_phase phase;
    sc_core::sc_time at;
    attributes what;
  };
  static attributes snapshot(const tlm::tlm_generic_payload& t) {
    return {t.get_command(),        t.get_address(),         t.get_data_ptr(),
            t.get_data_length(),    t.get_streaming_width(), t.get_byte_enable_length(),
            t.get_byte_enable_ptr()};
  }
  static std::string phase_name(const tlm::tlm_phase& p) {
    std::ostringstream s;
    s << p;
    return s.str();
  }
  state* find(tlm::tlm_generic_payload& t, const std::string& what) {
    auto it = flight_.find(&t);
    if (it == flight_.end()) {
      error(what + " of a transaction not in flight");
      return nullptr;
    }
    return &it->second;
  }
  void advance(state& s, tlm::tlm_phase p, const sc_core::sc_time& at) {
    if (at < s.at) error("phase " + phase_name(p) + " at an earlier time than " + phase_name(s.phase));
    s.phase = p;
    s.at = at;
  }
  void begin_response(tlm::tlm_generic_payload& t, state& s, const sc_core::sc_time& at) {
    if (response_ && response_ != &t) error("BEGIN_RESP while another response is in progress (response exclusion)");
    if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) error("BEGIN_RESP without a response status");
    response_ = &t;
    advance(s, tlm::BEGIN_RESP, at);
  }
  void finish(tlm::tlm_generic_payload& t) {
    auto it = flight_.find(&t);
    if (it == flight_.end()) return;
    if (!(snapshot(t) == it->second.what)) error("the target changed a payload attribute it must not");
    flight_.erase(it);
  }
  void error(const std::string& what) {
    ++errors_;
    if (messages_.size() < 10) messages_.push_back(sc_core::sc_time_stamp().to_string() + ": " + what);
  }

  std::map<tlm::tlm_generic_payload*, state> flight_;
  tlm::tlm_generic_payload* request_ = nullptr;
  tlm::tlm_generic_payload* response_ = nullptr;
  uint64_t errors_ = 0, transactions_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace sluice::test
