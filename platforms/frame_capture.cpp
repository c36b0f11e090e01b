#include "platforms/frame_capture.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "models/core/frame_kinds.h"
#include "models/core/params.h"
#include "models/core/units.h"
#include "models/protocol/ethernet.h"
#include "models/protocol/ib_frame.h"
#include "models/protocol/roce_frame.h"

namespace sluice {

struct frame_capture::port_file {
  pcapng_writer writer;
  uint32_t interface;
  port_file(const std::string& path, const std::string& key) : writer(path, key), interface(0) {}
};

uint32_t parse_capture_kinds(const std::string& text, const std::string& key) {
  uint32_t mask = 0;
  std::string known;
  for (const frame_kind_info* k : frame_kind_registry::instance().kinds())
    known += (known.empty() ? "" : ", ") + k->name;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string name = text.substr(at, comma - at);
    const frame_kind_info* k = frame_kind_registry::instance().find(name);
    if (!k) throw config_error(key + ": '" + name + "' is not a frame kind (one of {" + known + "})");
    mask |= 1u << static_cast<int>(k->kind);
    at = comma + 1;
  }
  return mask;
}

std::pair<uint64_t, uint64_t> parse_capture_window(const std::string& text, const std::string& key) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) throw config_error(key + ": '" + text + "' must look like FROM:TO (e.g. 1ms:2ms)");
  const uint64_t from = to_ps(parse_time(text.substr(0, colon), key));
  const uint64_t to = to_ps(parse_time(text.substr(colon + 1), key));
  if (to <= from) throw config_error(key + ": '" + text + "' ends before it starts");
  return {from, to};
}

frame_capture::frame_capture(const capture_options& options, bool infiniband)
    : options_(options), infiniband_(infiniband) {
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) throw config_error("--pcap: cannot create '" + options.dir + "': " + ec.message());
  probe_registry& probes = probe_registry::instance();
  // The ports are the MACs' parents: a point "sw0.port4.mac.tx_start" belongs to port "sw0.port4".
  std::map<std::string, std::vector<const probe_point*>> by_port;
  for (const std::string& pattern : options.ports) {
    std::size_t matched = 0;
    for (const char* leaf : {".mac.tx_start", ".mac.rx_end"})
      for (const probe_point* p : probes.points(pattern + leaf)) {
        std::string name = p->name();
        by_port[name.substr(0, name.size() - std::string(leaf).size())].push_back(p);
        ++matched;
      }
    if (!matched) throw config_error("--capture: '" + pattern + "' matches no port (see `sluice probes`)");
  }
  for (auto& [port, points] : by_port) {
    files_.push_back(options.dir + "/" + port + ".pcapng");
    ports_.push_back(std::make_unique<port_file>(files_.back(), "--pcap"));
    port_file& file = *ports_.back();
    file.interface = file.writer.add_interface(infiniband ? linktype_erf : linktype_ethernet, port,
                                               std::string("Sluice port ") + port + " (simulated time)");
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    for (const probe_point* p : points) {
      const capture_direction d =
          p->kind == &probes::tx_start ? capture_direction::outbound : capture_direction::inbound;
      probes.subscribe(p->name(), [this, &file, d](const probe_point&, const probe_event& e) { record(file, e, d); });
    }
  }
}

frame_capture::~frame_capture() = default;

void frame_capture::finish() {
  for (auto& p : ports_) p->writer.close();
}

uint32_t frame_capture::sequence_number(const frame_fields& f) {
  // The model numbers payload bytes (seq); a PSN numbers frames: the flow's frames carry its
  // largest payload but the last, so seq / that payload is the frame's number in its flow.
  uint32_t& most = frame_payload_[f.flow_id];
  most = std::max(most, f.payload);
  return static_cast<uint32_t>(most ? f.seq / most : 0) & 0xFFFFFF;
}

void frame_capture::record(port_file& file, const probe_event& e, capture_direction direction) {
  if (e.time_ps < options_.from_ps || e.time_ps >= options_.to_ps) return;
  const frame_fields& f = *e.frame;
  if (!(options_.kinds >> static_cast<int>(f.kind) & 1)) return;
  uint8_t buf[16 + max_image_bytes];
  const uint64_t ns = e.time_ps / 1000;
  uint32_t captured = 0, original = f.size;
  if (!infiniband_) {
    original = f.size > eth::fcs ? f.size - eth::fcs : f.size;  // as a capture shows it: no FCS
    if (e.image) {
      captured = std::min<uint32_t>(original, max_image_bytes);
      std::copy(e.image->begin(), e.image->begin() + captured, buf);
    } else {  // a data frame: its headers, rebuilt from the fields it carries
      roce::headers h;
      h.da = eth::mac_address(f.dst, 0);
      h.sa = eth::mac_address(f.src, 0);
      h.pcp = f.priority;
      h.ecn = f.ecn;
      h.src_ip = roce::node_ip(f.src);
      h.dst_ip = roce::node_ip(f.dst);
      h.udp_src = static_cast<uint16_t>(0xC000 | (f.flow_id & 0x3FFF));  // RoCEv2 entropy: per flow
      h.dest_qp = f.flow_id;                                             // the model's QP is the flow id
      h.psn = sequence_number(f);
      h.payload = f.payload;
      captured = static_cast<uint32_t>(roce::encode(h, buf));
    }
    file.writer.write_packet(file.interface, ns, buf, captured, original, direction);
  } else {
    uint8_t type = erf_type_infiniband;
    const uint32_t wire = f.size;
    if (f.kind == frame_kind::ib_credit) {
      type = erf_type_infiniband_link;
      captured = std::min<uint32_t>(f.size, max_image_bytes);
      std::copy(e.image->begin(), e.image->begin() + captured, buf + 16);
    } else if (e.image) {
      captured = std::min<uint32_t>(f.size, max_image_bytes);
      std::copy(e.image->begin(), e.image->begin() + captured, buf + 16);
    } else {
      ib::route_headers r;
      r.vl = f.priority;
      r.sl = f.sl;
      r.slid = ib::lid_of(f.src);
      r.dlid = ib::lid_of(f.dst);
      r.packet_words = static_cast<uint16_t>((f.size - ib::vcrc) / 4);
      r.fecn = f.flags & frame_flags::fecn;
      r.becn = f.flags & frame_flags::becn;
      r.ue = f.flags & frame_flags::tcd_ue;
      r.dest_qp = f.flow_id;
      r.psn = sequence_number(f);
      captured = static_cast<uint32_t>(ib::encode(r, buf + 16));
    }
    put_erf_header(buf, ns, type, static_cast<uint16_t>(captured), static_cast<uint16_t>(wire));
    file.writer.write_packet(file.interface, ns, buf, 16 + captured, 16 + wire, direction);
  }
  ++frames_;
}

}  // namespace sluice
