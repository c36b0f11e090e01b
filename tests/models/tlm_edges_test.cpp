// Honest TLM-2.0 time and payloads at the models' edges: a foreign SystemC process sees a
// model's signal at the model time of its cause, a transport call carries the models' time as
// its delay, and a payload that is not Sluice's is refused with a clear message.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "tests/support/harness.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// A plain SystemC module, outside the models: an SC_METHOD sensitive to a NIC's signal. It
// records the kernel's time when it runs and what it sees of the NIC then.
struct completion_listener : sc_core::sc_module {
  nic& watched;
  std::vector<uint64_t> kernel_ps, flow_ids, frames_sent;
  SC_HAS_PROCESS(completion_listener);
  completion_listener(sc_core::sc_module_name n, nic& w) : sc_module(n), watched(w) {
    SC_METHOD(heard);
    sensitive << watched.flow_completed_event();
    dont_initialize();
  }
  void heard() {
    kernel_ps.push_back(sc_core::sc_time_stamp().value());
    flow_ids.push_back(watched.last_completed_flow());
    frames_sent.push_back(watched.frames_sent(3));
  }
};

}  // namespace

TEST(TlmEdges, AForeignProcessHearsANicSignalAtTheModelTimeOfItsCause) {
  // a sends 100 KB to b while b streams to a; the only foreign activity is the sampler at 0 and
  // 30 us, so the flow completes deep inside one drain, with the models' clock far ahead of the
  // kernel's.
  auto sim =
      test::make_sim(test::two_nics("{kind: finite, src: a, dst: b, size: 100KB, priority: 3},"
                                    "{kind: constant, src: b, dst: a, rate: 10Gbps, priority: 3}",
                                    "run: {until: 30us, sample_period: 30us}\n"));
  nic& b = *sim->fabric_model().nics[1];
  uint64_t ahead_at_cause = 0, b_sent_at_cause = 0, model_ps_at_cause = 0;
  b.on_flow_complete([&](uint32_t) {
    ahead_at_cause = ahead_ps();
    model_ps_at_cause = now_ps();
    b_sent_at_cause = b.frames_sent(3);
  });
  completion_listener listener("listener", b);
  sim->run();
  const flow& f = sim->fabric_model().flows[0];
  ASSERT_TRUE(f.stats.completed());
  EXPECT_GT(ahead_at_cause, 10000000u) << "the cause was not inside a drain ahead of the kernel";
  ASSERT_EQ(listener.kernel_ps.size(), 1u);
  EXPECT_EQ(model_ps_at_cause, f.stats.completed_ps);
  EXPECT_EQ(listener.kernel_ps[0], f.stats.completed_ps);  // to the picosecond
  EXPECT_EQ(listener.flow_ids[0], f.id);
  // It saw the models as they were then: b had sent no frame since (the drain did not run on).
  EXPECT_EQ(listener.frames_sent[0], b_sent_at_cause);
  EXPECT_GT(b.frames_sent(3), b_sent_at_cause + 10);  // while the run went on afterwards
}

namespace {

// A foreign model's initiator on the link protocol: at time 0 it sends its payloads with the
// TLM-2.0 delay given (its own local time ahead of the kernel).
struct foreign_initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<foreign_initiator, 32, packet_protocol_types> out;
  std::vector<std::pair<tlm::tlm_generic_payload*, sc_time>> to_send;
  std::vector<sc_time> end_req;  // kernel time + returned delay
  SC_HAS_PROCESS(foreign_initiator);
  explicit foreign_initiator(sc_core::sc_module_name n) : sc_module(n), out("out") { SC_METHOD(send); }
  void send() {
    for (auto& [p, delay] : to_send) {
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_time d = delay;
      out->nb_transport_fw(*p, phase, d);
      end_req.push_back(sc_core::sc_time_stamp() + d);
    }
  }
};

// A receiving end that records when frames land (model time) and the delay they carried.
struct recording_receiver : sc_core::sc_module, frame_receiver {
  frame_in_socket in;
  std::vector<uint64_t> model_ps, kernel_plus_delay_ps;
  explicit recording_receiver(sc_core::sc_module_name n) : sc_module(n), in("in") { in.bind(*this); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase&, sc_time& delay) override {
    model_ps.push_back(now_ps());
    kernel_plus_delay_ps.push_back(sc_core::sc_time_stamp().value() + delay.value());
    p.release();
    return tlm::TLM_COMPLETED;
  }
};

}  // namespace

TEST(TlmEdges, TheLinkHonoursAForeignInitiatorsDelayAndAnnotatesItsOwnCalls) {
  sluice::link wire("wire", data_rate{40e9}, sc_time(1, sc_core::SC_US));
  foreign_initiator sender("sender"), idle("idle");
  recording_receiver receiver("receiver"), unused("unused");
  sender.out.bind(wire.ab.in);
  wire.ab.out.bind(receiver.in);
  idle.out.bind(wire.ba.in);
  wire.ba.out.bind(unused.in);
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
  header(*p).size = 1000;  // 200 ns at 40 Gb/s
  sender.to_send.push_back({p, sc_time(100, SC_NS)});
  sluice::start(sc_time(5, sc_core::SC_US));
  ASSERT_EQ(sender.end_req.size(), 1u);
  EXPECT_EQ(sender.end_req[0], sc_time(300, SC_NS));  // started at 0 + 100 ns, 200 ns on the wire
  ASSERT_EQ(receiver.model_ps.size(), 1u);
  EXPECT_EQ(receiver.model_ps[0], to_ps(sc_time(1300, SC_NS)));
  EXPECT_EQ(receiver.kernel_plus_delay_ps[0], receiver.model_ps[0]);  // the delay is model - kernel time
}

TEST(TlmEdges, AForeignPayloadIsRefusedWithAClearMessage) {
  sluice::link wire("wire", data_rate{40e9}, sc_time(1, sc_core::SC_US));
  foreign_initiator sender("sender"), idle("idle");
  recording_receiver receiver("receiver"), unused("unused");
  sender.out.bind(wire.ab.in);
  wire.ab.out.bind(receiver.in);
  idle.out.bind(wire.ba.in);
  wire.ba.out.bind(unused.in);
  tlm::tlm_generic_payload plain;  // a foreign model's: no memory manager, no packet_header
  plain.set_command(tlm::TLM_WRITE_COMMAND);
  sender.to_send.push_back({&plain, sc_core::SC_ZERO_TIME});
  try {
    sluice::start(sc_time(5, sc_core::SC_US));
    FAIL() << "the link took a foreign payload";
  } catch (const sc_core::sc_report& r) {
    const std::string m = r.get_msg();
    EXPECT_NE(m.find("must come from sluice::packet_pool"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_TRUE(receiver.model_ps.empty());
}

TEST(TlmEdges, PooledPayloadsCarryTheStandardFieldsOfAPostedWrite) {
  auto sim = test::make_sim(test::two_nics("{kind: finite, src: a, dst: b, size: 10KB, priority: 3}", ""));
  tlm::tlm_generic_payload* data = packet_pool::instance().acquire();
  tlm::tlm_generic_payload* control = packet_pool::instance().acquire(true);
  for (tlm::tlm_generic_payload* p : {data, control}) {
    EXPECT_EQ(p->get_command(), tlm::TLM_WRITE_COMMAND);
    EXPECT_EQ(p->get_address(), 0u);
    EXPECT_EQ(p->get_byte_enable_ptr(), nullptr);
    EXPECT_FALSE(p->is_dmi_allowed());
    // As a receiver leaves it: the direct hop's receiver does not write it (packet.h); the
    // socket path's transmitter sets TLM_INCOMPLETE_RESPONSE.
    EXPECT_EQ(p->get_response_status(), tlm::TLM_OK_RESPONSE);
  }
  EXPECT_EQ(data->get_data_ptr(), nullptr);  // a data frame's bytes are described by its header
  EXPECT_EQ(control->get_data_ptr(), header(*control).image->data());
  data->release();
  control->release();
}
