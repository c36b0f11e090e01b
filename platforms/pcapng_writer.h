// A pcapng file (the format Wireshark writes and reads: one section, interfaces with their link
// type and a nanosecond clock, enhanced packet blocks with a direction). The block layouts follow
// the PCAP Next Generation specification (IETF draft-ietf-opsawg-pcapng); blocks are written in
// the host's byte order, which the section's byte-order magic records.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace sluice {

// Link types of the interfaces (the tcpdump.org LINKTYPE_ registry).
constexpr uint16_t linktype_ethernet = 1;
constexpr uint16_t linktype_erf = 197;  // Endace ERF records: what carries InfiniBand

enum class capture_direction : uint32_t { inbound = 1, outbound = 2 };  // epb_flags bits 0-1

class pcapng_writer {
 public:
  // Creates (truncates) `path`; config_error "<key>: cannot write '<path>': <reason>" if it can't.
  pcapng_writer(const std::string& path, const std::string& key);
  ~pcapng_writer();
  pcapng_writer(const pcapng_writer&) = delete;
  pcapng_writer& operator=(const pcapng_writer&) = delete;

  // Declares an interface (before its packets); returns its id. Timestamps are in nanoseconds.
  uint32_t add_interface(uint16_t link_type, const std::string& name, const std::string& description);
  // One packet: `captured` bytes of `data`, of a frame `original` bytes long on the wire.
  void write_packet(uint32_t interface, uint64_t time_ns, const uint8_t* data, uint32_t captured, uint32_t original,
                    capture_direction direction);
  // Flushes and closes; config_error naming the path if any write failed (a full disk).
  void close();

 private:
  void put(const void* p, std::size_t n);
  void put32(uint32_t v) { put(&v, 4); }
  void put_option(uint16_t code, const void* value, uint16_t length);
  std::FILE* file_;
  std::string path_, key_;
  int error_ = 0;               // errno of the first write that failed
  std::vector<uint8_t> block_;  // written in 64 KiB runs (reused: no allocation per packet)
  uint32_t interfaces_ = 0;
};

// An ERF record header (16 bytes, Endace ERF types reference) for a record of `type` holding
// `captured` bytes of a `wire`-byte frame at `time_ns`, written at `out`.
constexpr uint8_t erf_type_infiniband = 21;       // an InfiniBand packet, from its LRH
constexpr uint8_t erf_type_infiniband_link = 25;  // an InfiniBand link packet (flow control)
void put_erf_header(uint8_t* out, uint64_t time_ns, uint8_t type, uint16_t captured, uint16_t wire);

}  // namespace sluice
