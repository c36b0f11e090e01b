// Direct hops (models/link/direct_hops.h): our MACs and link channels bound to each other call
// each other directly; with a foreign model on one end the socket path stays, with its phases
// and annotated times. Both paths must give the same behaviour, frame for frame and byte for byte.
#include "models/link/direct_hops.h"

#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "tests/support/harness.h"
#include "tests/support/mac_bench.h"

using namespace sluice;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// A foreign model between two of ours (a protocol checker, a monitor, a third-party wrapper):
// plain TLM-2.0 sockets, not a frame_receiver. It passes every call on and records the phase
// and the annotated time (kernel time + delay) of each call and of each return.
struct tlm_tap : sc_core::sc_module {
  struct call {
    uint64_t annotated_ps;  // the call's kernel time + delay
    uint64_t returned_ps;   // the answer's kernel time + delay
    uint64_t model_ps;      // the models' clock during the call
    uint64_t ahead_ps;      // how far that clock was ahead of the kernel
    tlm::tlm_phase phase, returned_phase;
    tlm::tlm_sync_enum status;
    tlm::tlm_response_status response;
    uint32_t size;
    tlm::tlm_response_status sent_response;  // as the call found it
    unsigned data_length;
  };
  tlm_utils::simple_target_socket<tlm_tap, 32, packet_protocol_types> in;
  tlm_utils::simple_initiator_socket<tlm_tap, 32, packet_protocol_types> out;
  std::vector<call> calls;
  explicit tlm_tap(sc_core::sc_module_name n) : sc_module(n), in("in"), out("out") {
    in.register_nb_transport_fw(this, &tlm_tap::forward);
  }
  tlm::tlm_sync_enum forward(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_time& delay) {
    call c{};
    c.annotated_ps = sc_core::sc_time_stamp().value() + delay.value();
    c.model_ps = now_ps();
    c.ahead_ps = ahead_ps();
    c.phase = phase;
    c.size = header(p).size;
    c.sent_response = p.get_response_status();
    c.data_length = p.get_data_length();
    c.status = out->nb_transport_fw(p, phase, delay);
    c.returned_ps = sc_core::sc_time_stamp().value() + delay.value();
    c.returned_phase = phase;
    c.response = p.get_response_status();
    calls.push_back(c);
    return c.status;
  }
};

// a -> b over one link, with a tap on the transmitter's side, on the receiver's side, or none;
// b -> a untouched. `a_source`: what a sends (by default, back-to-back frames of three sizes on
// three classes); `shipper`: a -> b ships to another process.
struct tapped_pair {
  sluice::link wire;
  mac_port a, b;
  test::recording_source a_src, b_src;
  test::recording_sink a_sink, b_sink;
  std::unique_ptr<tlm_tap> tx_tap, rx_tap;
  tapped_pair(const std::string& name, bool tap_tx, bool tap_rx, frame_source_if* a_source = nullptr,
              frame_shipper* shipper = nullptr, sc_time delay = sc_time(1, sc_core::SC_US))
      : wire((name + "_wire").c_str(), data_rate{40e9}, delay),
        a((name + "_a").c_str(), 0, 0x020000000001ull),
        b((name + "_b").c_str(), 0, 0x020000000002ull) {
    if (tap_tx) {
      tx_tap = std::make_unique<tlm_tap>((name + "_tx_tap").c_str());
      a.tx.bind(tx_tap->in);
      tx_tap->out.bind(wire.ab.in);
    } else {
      a.tx.bind(wire.ab.in);
    }
    if (tap_rx) {
      rx_tap = std::make_unique<tlm_tap>((name + "_rx_tap").c_str());
      wire.ab.out.bind(rx_tap->in);
      rx_tap->out.bind(b.rx);
    } else {
      wire.ab.out.bind(b.rx);
    }
    if (shipper) wire.ab.ship_to(shipper, 7);
    test::join_but_a_to_b(wire, a, b, a_source ? *a_source : a_src, a_sink, b_src, b_sink);
    b_src.add(2, 300, 30);
    if (a_source) return;
    // Back-to-back frames of three sizes on two classes each way, so that the models' clock
    // runs ahead of the kernel while they cross.
    a_src.add(1, 1000, 40);
    a_src.add(3, 64, 25);
    a_src.add(5, 1500, 10);
  }
};

// Frames of random sizes (one in six of 0 bytes: two of them can land in one picosecond) after
// random gaps (a third of them paced, the rest back to back), the same on every copy of a seed.
struct random_source : frame_source_if {
  std::mt19937_64 rng;
  int left;
  uint64_t ready_ps = 0;
  std::vector<uint64_t> starts;
  std::vector<uint32_t> sizes;
  random_source(uint64_t seed, int frames) : rng(seed), left(frames) {}
  tlm::tlm_generic_payload* next_frame(uint64_t now, uint64_t& retry_ps) override {
    if (!left) return nullptr;
    if (now < ready_ps) {
      retry_ps = std::min(retry_ps, ready_ps);
      return nullptr;
    }
    --left;
    tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
    packet_header& h = header(*p);
    h.kind = frame_kind::data;
    h.size = rng() % 6 == 0 ? 0 : static_cast<uint32_t>(64 + rng() % 9000);
    starts.push_back(now);
    sizes.push_back(h.size);
    ready_ps = now + (rng() % 3 == 0 ? rng() % 400000 : 0);
    return p;
  }
  uint64_t next_ready_ps(uint64_t now) const override { return left ? std::max(ready_ps, now) : never_ps; }
};

// Frames with a wire image (control frames: their data length is the image's size) and without,
// at random, of random sizes: payloads come back from the pool with the fields their last hop left.
struct image_source : frame_source_if {
  std::mt19937_64 rng;
  int left;
  std::vector<uint32_t> sizes;  // 0 for frames without an image
  image_source(uint64_t seed, int frames) : rng(seed), left(frames) {}
  tlm::tlm_generic_payload* next_frame(uint64_t, uint64_t&) override {
    if (!left) return nullptr;
    --left;
    const bool image = rng() % 2;
    tlm::tlm_generic_payload* p = packet_pool::instance().acquire(image);
    packet_header& h = header(*p);
    h.kind = image ? frame_kind::cnp : frame_kind::data;
    h.size = static_cast<uint32_t>(rng() % (max_image_bytes + 1));
    sizes.push_back(image ? h.size : 0);
    return p;
  }
  uint64_t next_ready_ps(uint64_t now) const override { return left ? now : never_ps; }
};

// The response status of each frame a sink takes (and which payload it was), and a sink's own record.
struct status_sink : test::recording_sink {
  std::vector<tlm::tlm_response_status> statuses;
  std::vector<const tlm::tlm_generic_payload*> payloads;
  void receive_frame(tlm::tlm_generic_payload* p, int port) override {
    statuses.push_back(p->get_response_status());
    payloads.push_back(p);
    recording_sink::receive_frame(p, port);
  }
};

// The receiving end in another process: what the channel ships, and when.
struct recording_shipper : frame_shipper {
  struct shipped {
    uint32_t channel;
    uint64_t sent_ps, arrives_ps;
    uint32_t size;
  };
  std::vector<shipped> frames;
  std::vector<const tlm::tlm_generic_payload*> released;  // with the status the socket path left
  void ship(uint32_t channel, uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload& frame) override {
    frames.push_back({channel, sent_ps, arrives_ps, header(frame).size});
    released.push_back(&frame);
    frame.release();
  }
};

std::vector<uint64_t> arrival_times(const test::recording_sink& s) {
  std::vector<uint64_t> t;
  for (const auto& f : s.frames) t.push_back(f.at_ps);
  return t;
}

}  // namespace

TEST(DirectHops, AForeignModelOnEitherEndKeepsTheSocketPathWithItsAnnotatedTimes) {
  tapped_pair direct("direct", false, false), tapped("tapped", true, true), half("half", true, false);
  sluice::start(sc_time(20, sc_core::SC_US));

  // Ours bound to ours take the direct hop; a foreign model on an end keeps the socket.
  EXPECT_TRUE(direct.a.transmits_directly());
  EXPECT_TRUE(direct.wire.ab.delivers_directly());
  EXPECT_FALSE(tapped.a.transmits_directly());
  EXPECT_FALSE(tapped.wire.ab.delivers_directly());
  EXPECT_TRUE(tapped.b.transmits_directly());  // the other direction has no tap
  EXPECT_FALSE(half.a.transmits_directly());
  // A foreign transmitter's frames carry its response status: delivered through the socket,
  // whose receiver sets it, not by the direct hop, which leaves it.
  EXPECT_FALSE(half.wire.ab.delivers_directly());
  EXPECT_TRUE(half.b.transmits_directly());

  // Frame for frame the same: every start and every arrival at the same picosecond.
  ASSERT_EQ(direct.a_src.starts.size(), 75u);
  ASSERT_EQ(direct.b_sink.frames.size(), 75u);
  for (const tapped_pair* other : {&tapped, &half}) {
    EXPECT_EQ(other->a_src.starts, direct.a_src.starts);
    EXPECT_EQ(other->a_src.classes, direct.a_src.classes);
    EXPECT_EQ(arrival_times(other->b_sink), arrival_times(direct.b_sink));
    EXPECT_EQ(arrival_times(other->a_sink), arrival_times(direct.a_sink));
  }

  // The transmitter's side: BEGIN_REQ annotated with the first bit's time, answered END_REQ
  // (TLM_UPDATED) at the last bit's.
  ASSERT_EQ(tapped.tx_tap->calls.size(), 75u);
  int ahead_of_kernel = 0;
  for (std::size_t i = 0; i < tapped.tx_tap->calls.size(); ++i) {
    const tlm_tap::call& c = tapped.tx_tap->calls[i];
    EXPECT_EQ(c.phase, tlm::BEGIN_REQ);
    EXPECT_EQ(c.annotated_ps, tapped.a_src.starts[i]);
    EXPECT_EQ(c.annotated_ps, c.model_ps);
    EXPECT_EQ(c.status, tlm::TLM_UPDATED);
    EXPECT_EQ(c.returned_phase, tlm::END_REQ);
    EXPECT_EQ(c.returned_ps, c.annotated_ps + data_rate{40e9}.serialization_ps(c.size)) << "frame " << i;
    EXPECT_EQ(c.response, tlm::TLM_INCOMPLETE_RESPONSE);
    ahead_of_kernel += c.ahead_ps > 0;
  }
  EXPECT_GT(ahead_of_kernel, 50) << "the calls were not annotated: the clock never ran ahead";

  // The receiver's side: BEGIN_REQ annotated with the last bit's time, taken (TLM_COMPLETED,
  // TLM_OK_RESPONSE).
  ASSERT_EQ(tapped.rx_tap->calls.size(), 75u);
  for (std::size_t i = 0; i < tapped.rx_tap->calls.size(); ++i) {
    const tlm_tap::call& c = tapped.rx_tap->calls[i];
    EXPECT_EQ(c.phase, tlm::BEGIN_REQ);
    EXPECT_EQ(c.annotated_ps, tapped.b_sink.frames[i].at_ps);
    EXPECT_EQ(c.annotated_ps, c.model_ps);
    EXPECT_EQ(c.status, tlm::TLM_COMPLETED);
    EXPECT_EQ(c.response, tlm::TLM_OK_RESPONSE);
  }
}

// Sockets are made on demand (models/protocol/socket_on_demand.h): one a foreign model binds
// has the name and parent it always had and carries the frames; the ends joined directly make none.
TEST(DirectHops, ASocketAForeignModelBindsIsMadeUnderItsOwner) {
  tapped_pair tapped("named", true, false);
  sluice::start(sc_time(20, sc_core::SC_US));
  ASSERT_TRUE(tapped.a.tx.made());
  EXPECT_STREQ(tapped.a.tx.get().name(), "named_a.tx");
  EXPECT_EQ(tapped.a.tx.get().get_parent_object(), &tapped.a);
  ASSERT_TRUE(tapped.wire.ab.in.made());
  EXPECT_STREQ(tapped.wire.ab.in.get().name(), "named_wire.ab.in");
  EXPECT_EQ(tapped.wire.ab.in.get().get_parent_object(), &tapped.wire.ab);
  EXPECT_EQ(tapped.tx_tap->calls.size(), 75u);  // every frame through the tap's sockets
  EXPECT_EQ(tapped.b_sink.frames.size(), 75u);
}

TEST(DirectHops, AFabricsOwnMacsAndLinksAreJoinedWithoutSockets) {
  run_options o;
  o.until = parse_time("1us");
  simulation sim(load_scenario_file(test::scenario_path("leaf-spine.yaml")), o);
  sim.run();
  int made = 0, links = 0;
  for (const link_entry& l : sim.fabric_model().links) {
    ++links;
    made += l.a.mac->tx.made() + l.a.mac->rx.made() + l.b.mac->tx.made() + l.b.mac->rx.made();
    made += l.model->ab.in.made() + l.model->ab.out.made() + l.model->ba.in.made() + l.model->ba.out.made();
    EXPECT_TRUE(l.a.mac->transmits_directly() && l.model->ab.delivers_directly());
  }
  EXPECT_GT(links, 10);
  EXPECT_EQ(made, 0);
}

namespace {

// A shipped scenario's outputs (summary.json without its wall times and provenance, every CSV)
// as one text, and how many MACs and link directions took the direct hop.
std::string outputs_of(const std::string& scenario, const std::string& until) {
  run_options o;
  o.until = parse_time(until);
  simulation sim(load_scenario_file(test::scenario_path(scenario)), o);
  sim.run();
  const std::string dir = ::testing::TempDir() + "/direct-hops-" + std::to_string(getpid());
  sim.write_outputs(dir);
  nlohmann::json j = nlohmann::json::parse(test::slurp(dir + "/summary.json"));
  j["totals"].erase("wall_time_s");
  j["totals"].erase("elaboration_s");
  j.erase("provenance");
  std::string out = j.dump(1);
  std::vector<std::string> csvs;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".csv") csvs.push_back(e.path().string());
  std::sort(csvs.begin(), csvs.end());
  for (const std::string& f : csvs)
    out += "\n== " + std::filesystem::path(f).filename().string() + "\n" + test::slurp(f);
  std::filesystem::remove_all(dir);
  int direct = 0;
  for (const link_entry& l : sim.fabric_model().links)
    direct += l.a.mac->transmits_directly() + l.b.mac->transmits_directly() + l.model->ab.delivers_directly() +
              l.model->ba.delivers_directly();
  return "direct " + std::to_string(direct) + "\n" + out;
}

}  // namespace

TEST(DirectHops, AFabricRunsByteForByteTheSameThroughTheSockets) {
  // pcn-basic: PFC pauses, congestion points, CNPs and rate changes, across two switches.
  const std::string sockets = test::in_child([] {
    direct_hops = false;
    return outputs_of("pcn-basic.yaml", "1500us");
  });
  const std::string direct = outputs_of("pcn-basic.yaml", "1500us");
  const std::size_t head = direct.find('\n');
  ASSERT_EQ(sockets.substr(0, sockets.find('\n')), "direct 0");
  EXPECT_GT(std::stoi(direct.substr(7, head - 7)), 20);
  ASSERT_GT(direct.size(), 10000u);
  EXPECT_TRUE(direct.substr(head) == sockets.substr(sockets.find('\n'))) << "a run differs with direct hops off";
}

TEST(DirectHops, CountersAndTimesAreTheSameOnEitherPathWhateverTheFrames) {
  // The direct hop counts a MAC's frames in its link and keeps no stack frame for the socket
  // path; a channel that ships to another process takes our MAC's socket path. Every path must
  // start, deliver and count every frame alike, also two frames landing in one picosecond.
  constexpr int frames = 600;
  const sc_time no_delay = sc_core::SC_ZERO_TIME;
  random_source direct_src(11, frames), tapped_src(11, frames), half_src(11, frames), shipped_src(11, frames),
      zero_src(11, frames), zero_tapped_src(11, frames);
  recording_shipper shipper;
  tapped_pair direct("direct", false, false, &direct_src), tapped("tapped", true, true, &tapped_src),
      half("half", false, true, &half_src), shipped("shipped", false, false, &shipped_src, &shipper),
      zero("zero", false, false, &zero_src, nullptr, no_delay),
      zero_tapped("zero_tapped", false, true, &zero_tapped_src, nullptr, no_delay);
  sluice::start(sc_time(1, sc_core::SC_MS));

  EXPECT_TRUE(direct.a.transmits_directly());
  EXPECT_FALSE(shipped.a.transmits_directly());  // its channel ships: the socket path
  EXPECT_TRUE(shipped.b.transmits_directly());   // the other direction does not
  ASSERT_EQ(direct_src.starts.size(), static_cast<std::size_t>(frames));
  ASSERT_EQ(direct.b_sink.frames.size(), static_cast<std::size_t>(frames));
  const uint64_t end = now_ps();
  auto counts = [end](const tapped_pair& t) {
    return std::vector<uint64_t>{t.a.frames_sent(),
                                 t.a.bytes_sent(),
                                 t.wire.ab.frames(),
                                 t.wire.ab.bytes(),
                                 to_ps(t.wire.ab.busy_time(from_ps(end))),
                                 t.b.frames_sent(),
                                 t.b.bytes_sent()};
  };
  const std::vector<uint64_t> expected = counts(direct);
  uint64_t bytes = 0;
  for (uint32_t s : direct_src.sizes) bytes += s;
  EXPECT_EQ(expected[0], static_cast<uint64_t>(frames));
  EXPECT_EQ(expected[1], bytes);
  EXPECT_EQ(expected[2], static_cast<uint64_t>(frames));
  EXPECT_EQ(expected[3], bytes);
  for (const random_source* s : {&tapped_src, &half_src, &shipped_src}) EXPECT_EQ(s->starts, direct_src.starts);
  EXPECT_EQ(counts(tapped), expected);
  EXPECT_EQ(counts(half), expected);
  EXPECT_EQ(counts(shipped), expected);
  EXPECT_EQ(arrival_times(tapped.b_sink), arrival_times(direct.b_sink));
  EXPECT_EQ(arrival_times(half.b_sink), arrival_times(direct.b_sink));

  // Shipped: each frame at its first bit, with the arrival the direct hop delivered it at.
  ASSERT_EQ(shipper.frames.size(), static_cast<std::size_t>(frames));
  for (std::size_t i = 0; i < shipper.frames.size(); ++i) {
    EXPECT_EQ(shipper.frames[i].channel, 7u);
    EXPECT_EQ(shipper.frames[i].sent_ps, direct_src.starts[i]);
    EXPECT_EQ(shipper.frames[i].arrives_ps, direct.b_sink.frames[i].at_ps) << "frame " << i;
    EXPECT_EQ(shipper.frames[i].size, direct_src.sizes[i]);
  }
  EXPECT_THROW(direct.wire.ba.ship_to(&shipper, 1), sc_core::sc_report);  // too late: a MAC is bound

  // Without delay, zero-byte frames land in one picosecond: delivered in one wake-up on either path.
  EXPECT_EQ(zero_tapped_src.starts, zero_src.starts);
  EXPECT_EQ(arrival_times(zero_tapped.b_sink), arrival_times(zero.b_sink));
  EXPECT_EQ(counts(zero_tapped), counts(zero));
  const std::vector<uint64_t> landed = arrival_times(zero.b_sink);
  ASSERT_EQ(landed.size(), static_cast<std::size_t>(frames));
  int ties = 0;
  for (std::size_t i = 1; i < landed.size(); ++i) ties += landed[i] == landed[i - 1];
  EXPECT_GT(ties, 20) << "no two frames landed in one picosecond";
}

TEST(DirectHops, TheFieldsATlmTargetReadsAreSetOnTheSocketPathAndTheStatusOnBoth) {
  // The direct hop leaves the transmitter's response status and data length alone (our link and
  // receiver read neither); a foreign target must still find each frame TLM_INCOMPLETE_RESPONSE
  // with its image's size, also on payloads whose last hop was direct, and every sink
  // TLM_OK_RESPONSE: the direct hop's receiver does not write it, so a payload the shipper
  // released as the socket path left it (TLM_INCOMPLETE_RESPONSE) must come back from the pool
  // with TLM_OK_RESPONSE, and a foreign transmitter's frames must reach the sink through the socket.
  constexpr int frames = 400;
  image_source direct_src(5, frames), tapped_src(5, frames), shipped_src(6, frames);
  recording_shipper shipper;
  tapped_pair direct("direct", false, false, &direct_src), tapped("tapped", true, false, &tapped_src),
      shipped("shipped", false, false, &shipped_src, &shipper);
  status_sink direct_sink, tapped_sink;
  direct.b.attach(&direct.b_src, &direct_sink);
  tapped.b.attach(&tapped.b_src, &tapped_sink);
  sluice::start(sc_time(1, sc_core::SC_MS));

  // The direct pair took payloads the shipper had released.
  ASSERT_EQ(shipper.released.size(), static_cast<std::size_t>(frames));
  int reused = 0;
  for (const tlm::tlm_generic_payload* p : direct_sink.payloads)
    reused += std::find(shipper.released.begin(), shipper.released.end(), p) != shipper.released.end();
  EXPECT_GT(reused, frames / 2);

  ASSERT_TRUE(direct.a.transmits_directly());
  ASSERT_FALSE(tapped.a.transmits_directly());
  ASSERT_EQ(tapped.tx_tap->calls.size(), static_cast<std::size_t>(frames));
  int images = 0;
  for (std::size_t i = 0; i < tapped.tx_tap->calls.size(); ++i) {
    const tlm_tap::call& c = tapped.tx_tap->calls[i];
    EXPECT_EQ(c.sent_response, tlm::TLM_INCOMPLETE_RESPONSE) << "frame " << i;
    EXPECT_EQ(c.data_length, tapped_src.sizes[i]) << "frame " << i;
    images += tapped_src.sizes[i] > 0;
  }
  EXPECT_GT(images, frames / 3);
  for (const status_sink* s : {&direct_sink, &tapped_sink}) {
    ASSERT_EQ(s->statuses.size(), static_cast<std::size_t>(frames));
    for (tlm::tlm_response_status r : s->statuses) EXPECT_EQ(r, tlm::TLM_OK_RESPONSE);
  }
}

// On the direct hop a data frame goes from the link to its receiver's sink, through the link's
// copy of the sink and port index (link_channel::receiver_attached), not the MAC: a sink attached
// while frames are on the wire takes every frame that lands after. b's sink is replaced between
// the first and the second of three frames' arrivals; had the link kept the sink it saw at the
// start, the second and third would reach the first sink.
TEST(DirectHops, ADataFrameReachesTheSinkAttachedLastThroughTheLinksCopyOfIt) {
  test::mac_pair m;
  test::recording_sink later;
  m.a_src.add(0, 1000, 3);  // 200 ns each at 40 Gb/s, then 1 us of cable: land at 1.2, 1.4 and 1.6 us
  test::step_driver d("driver");
  d.at(sc_time(1300, SC_NS), [&] { m.b.attach(&m.b_src, &later); });
  sluice::start(sc_time(5, sc_core::SC_US));
  EXPECT_TRUE(m.wire.ab.delivers_directly());
  ASSERT_EQ(arrival_times(m.b_sink), (std::vector<uint64_t>{test::ns_ps(1200)}));
  EXPECT_EQ(arrival_times(later), (std::vector<uint64_t>{test::ns_ps(1400), test::ns_ps(1600)}));
}
