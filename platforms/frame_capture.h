// Packet captures that Wireshark reads: every frame that starts on (tx_start) or arrives at
// (rx_end) a chosen port, in the encoding a tap on that link would see, one pcapng file per
// port with simulated time in nanoseconds (docs/observability.md).
//   CEE: Ethernet + 802.1Q (PCP) and, for data, IPv4 (ECN bits) / UDP 4791 / RoCEv2 BTH; PFC,
//        CNM, CNP and ACK frames as their wire images. Data payload is not modelled: a data
//        frame is captured up to its BTH, with its wire length as the original length.
//   InfiniBand: ERF records (link type 197): packets from the LRH (FECN/BECN in the BTH), and
//        flow-control (credit) packets as ERF InfiniBand link records.
// A subscriber of the MAC probe points: with no capture asked for, it costs the datapath nothing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/core/probe.h"
#include "platforms/pcapng_writer.h"

namespace sluice {

struct capture_options {
  std::string dir;                      // --pcap DIR ("": no capture)
  std::vector<std::string> ports;       // --capture PATTERN: port names (globs), e.g. "sw0.port4"
  uint32_t kinds = ~0u;                 // --capture-kinds: bit per frame_kind number
  uint64_t from_ps = 0, to_ps = ~0ull;  // --capture-window FROM:TO (inclusive from, exclusive to)
};

// Parses --capture-kinds ("data,pfc,cnm": frame kind names) and --capture-window ("1ms:2ms");
// `key` names the option in one-line errors.
uint32_t parse_capture_kinds(const std::string& text, const std::string& key);
std::pair<uint64_t, uint64_t> parse_capture_window(const std::string& text, const std::string& key);

class frame_capture {
 public:
  // Opens DIR/<port>.pcapng for every port matching a pattern and subscribes to its MAC; a
  // pattern that matches no port is a config_error naming it.
  frame_capture(const capture_options& options, bool infiniband);
  ~frame_capture();
  // Closes the files (config_error if a write failed). Frames written, over all files:
  void finish();
  uint64_t frames() const { return frames_; }
  const std::vector<std::string>& files() const { return files_; }

 private:
  struct port_file;
  void record(port_file& file, const probe_event& e, capture_direction direction);
  uint32_t sequence_number(const frame_fields& f);
  capture_options options_;
  bool infiniband_;
  std::vector<std::unique_ptr<port_file>> ports_;
  std::vector<std::string> files_;
  std::unordered_map<uint32_t, uint32_t> frame_payload_;  // per flow: its largest frame payload
  uint64_t frames_ = 0;
};

}  // namespace sluice
