// ns-3 anchor for Sluice's incast benchmark (docs/performance.md, "Against ns-3"): the workload
// of `sluice run scenarios/incast.yaml --until 20ms --set '*.mtu=1000B'` as close as ns-3 3.37
// comes, for a packet-hops-per-wall-second comparison. Built and run by tools/bench_vs_ns3.sh.
//
// Same as Sluice: 16 senders and one receiver on one switch, every link 40 Gb/s with 1 us of
// propagation each way, 1000-byte frames on the wire (970 B of UDP payload + UDP 8 + IPv4 20 +
// PPP 2), each sender a constant 10 Gb/s of wire bytes from t = 0 (one frame every 800 ns).
// Different: ns-3 has no PFC. The switch is an IPv4 router whose egress device queue is large
// enough that nothing is dropped; the senders are not paused, so the whole excess (120 Gb/s)
// queues there and no pause frames cross the links (--senderRate=2.5Gbps gives the rate PFC
// leaves each sender instead). Packet-hops are counted as Sluice counts them: every frame
// delivered over one link, either direction (PointToPointNetDevice's PhyRxEnd).
#include <chrono>
#include <cstdint>
#include <iostream>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

using namespace ns3;

namespace {

uint64_t packet_hops = 0, drops = 0;

void count_hop(Ptr<const Packet>) { ++packet_hops; }
void count_drop(Ptr<const Packet>) { ++drops; }

}  // namespace

int main(int argc, char* argv[]) {
  uint32_t senders = 16;
  double sim_ms = 20;
  std::string sender_rate = "10Gbps";  // wire bytes, as Sluice's constant traffic counts them
  std::string queue = "400000p";       // > 16 x 25 000 - 100 000 frames backlogged at 20 ms
  CommandLine cmd(__FILE__);
  cmd.AddValue("senders", "senders into the one receiver", senders);
  cmd.AddValue("simTime", "simulated time, ms", sim_ms);
  cmd.AddValue("senderRate", "each sender's rate in wire bytes", sender_rate);
  cmd.AddValue("queue", "every device queue's size (the switch's egress to the receiver fills)", queue);
  cmd.Parse(argc, argv);

  const uint32_t frame = 1000, ip_udp_ppp = 20 + 8 + 2, payload = frame - ip_udp_ppp;
  NodeContainer hosts, sw, receiver;
  hosts.Create(senders);
  sw.Create(1);
  receiver.Create(1);
  InternetStackHelper stack;
  stack.SetRoutingHelper(Ipv4GlobalRoutingHelper());  // static routing too would scan twice more
  stack.InstallAll();

  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", StringValue("40Gbps"));
  p2p.SetChannelAttribute("Delay", StringValue("1us"));
  p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(queue)));
  Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
  TrafficControlHelper no_queue_disc;  // the device queue only, as a switch port (no FqCoDel drops)
  auto connect = [&](Ptr<Node> a, Ptr<Node> b) {
    NetDeviceContainer link = p2p.Install(a, b);
    Ipv4InterfaceContainer ends = addresses.Assign(link);
    addresses.NewNetwork();
    no_queue_disc.Uninstall(link);
    return ends;
  };
  for (uint32_t i = 0; i < senders; ++i) connect(hosts.Get(i), sw.Get(0));
  Ipv4Address sink_address = connect(sw.Get(0), receiver.Get(0)).GetAddress(1);
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  const uint16_t port = 9;
  PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
  sink.Install(receiver).Start(Seconds(0));
  // OnOff's rate counts payload bytes: scale it so that one 1000-byte frame leaves per period.
  DataRate wire(sender_rate);
  OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(sink_address, port));
  onoff.SetConstantRate(DataRate(wire.GetBitRate() / frame * payload), payload);
  onoff.Install(hosts).Start(Seconds(0));

  Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyRxEnd",
                                MakeCallback(&count_hop));
  // Drops (none with the default queue) as a check: with no queue disc, a full device queue stops
  // the traffic-control layer above it, which drops the packet itself (TcDrop).
  Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/TxQueue/Drop",
                                MakeCallback(&count_drop));
  Config::ConnectWithoutContext("/NodeList/*/$ns3::TrafficControlLayer/TcDrop", MakeCallback(&count_drop));
  Simulator::Stop(MicroSeconds(sim_ms * 1000));
  auto start = std::chrono::steady_clock::now();
  Simulator::Run();  // the wall time is this call's alone, as Sluice's wall_time_s is sc_start's
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t events = Simulator::GetEventCount();
  Simulator::Destroy();

  std::cout << "ns-3 incast " << sim_ms << " ms: " << packet_hops << " packet-hops in " << wall
            << " s = " << packet_hops / wall << " packet-hops/s, " << events << " events ("
            << double(events) / packet_hops << " per packet-hop), " << drops << " drops\n"
            << "packet_hops " << packet_hops << " wall_s " << wall << " events " << events << "\n";
  return 0;
}
