// SPDX-License-Identifier: Apache-2.0
#include "report/bench/render.hpp"

#include <fmt/format.h>

namespace peergate::report::bench {

namespace {

using OJson = nlohmann::ordered_json;

OJson gbps(const std::optional<engine::SampleStats>& s) {
    return s ? OJson(s->median / 1e9) : OJson(nullptr);
}

OJson stats(const std::optional<engine::SampleStats>& s, double scale) {
    if (!s) {
        return nullptr;
    }
    OJson samples = OJson::array();
    for (const double v : s->samples) {
        samples.push_back(v * scale);
    }
    return OJson{{"median", s->median * scale},
                 {"min", s->min * scale},
                 {"max", s->max * scale},
                 {"samples", samples}};
}

std::string cell(const std::optional<engine::SampleStats>& s, double scale, const char* format) {
    return s ? fmt::format(fmt::runtime(format), s->median * scale) : std::string("-");
}

OJson pair_json(const engine::PairBandwidth& p) {
    return OJson{{"src", p.src},
                 {"dst", p.dst},
                 {"path", model::to_string(p.path)},
                 {"p2p_gbps", gbps(p.p2p)},
                 {"staged_gbps", gbps(p.staged)},
                 {"bidirectional_gbps", gbps(p.bidirectional)},
                 {"latency_us", p.latency ? OJson(p.latency->median * 1e6) : OJson(nullptr)},
                 {"p2p_slower_than_staged", p.p2p_slower_than_staged()},
                 {"samples",
                  {{"p2p_gbps", stats(p.p2p, 1e-9)},
                   {"staged_gbps", stats(p.staged, 1e-9)},
                   {"bidirectional_gbps", stats(p.bidirectional, 1e-9)},
                   {"latency_us", stats(p.latency, 1e6)}}},
                 {"error", p.error.empty() ? OJson(nullptr) : OJson(p.error)}};
}

OJson device_json(const engine::DeviceBandwidth& d) {
    return OJson{{"gpu", d.gpu},
                 {"device_local_gbps", gbps(d.device_local)},
                 {"host_to_device_gbps", gbps(d.host_to_device)},
                 {"device_to_host_gbps", gbps(d.device_to_host)},
                 {"error", d.error.empty() ? OJson(nullptr) : OJson(d.error)}};
}

OJson text_or_null(const std::string& text) {
    return text.empty() ? OJson(nullptr) : OJson(text);
}

}  // namespace

std::string bench_reason(const engine::BenchResult& r, int exit_status) {
    if (exit_status == 1) {
        std::vector<std::string> slow;
        for (const auto& p : r.pairs) {
            if (p.p2p_slower_than_staged()) {
                slow.push_back(
                    fmt::format("GPU {} -> GPU {} ({:.1f} GB/s P2P vs {:.1f} GB/s staged)",
                                p.src,
                                p.dst,
                                p.p2p->median / 1e9,
                                p.staged->median / 1e9));
            }
        }
        return fmt::format(
            "P2P is slower than staging through host memory on {}: a known signature "
            "of broken PCIe P2P; do not enable GGML_CUDA_P2P there",
            fmt::join(slow, "; "));
    }
    if (exit_status == 2) {
        return r.reason.empty() ? "nothing could be measured" : r.reason;
    }
    return r.pairs.empty() ? "one GPU: device-local and host<->device bandwidth measured"
                           : "P2P is at least as fast as staged on every ordered pair";
}

nlohmann::ordered_json bench_to_json(const engine::BenchResult& r,
                                     int exit_status,
                                     const BenchOrigin& origin) {
    OJson pairs = OJson::array();
    for (const auto& p : r.pairs) {
        pairs.push_back(pair_json(p));
    }
    OJson devices = OJson::array();
    for (const auto& d : r.devices) {
        devices.push_back(device_json(d));
    }
    OJson uuids = OJson::array();
    for (const auto& uuid : origin.gpu_uuids) {
        uuids.push_back(text_or_null(uuid));
    }
    const char* result = exit_status == 0 ? "pass" : exit_status == 1 ? "fail" : "inconclusive";
    return OJson{{"schema", "peergate.bench/v1"},
                 {"result", result},
                 {"reason", bench_reason(r, exit_status)},
                 {"gpus", r.gpus},
                 {"size_bytes", r.size_bytes},
                 {"pairs", pairs},
                 {"devices", devices},
                 {"host", text_or_null(origin.host)},
                 {"gpu_uuids", uuids}};
}

std::string bench_to_text(const engine::BenchResult& r, int exit_status) {
    std::string out;
    if (!r.pairs.empty()) {
        out += fmt::format("{:<12}{:<8}{:>12}{:>12}{:>12}{:>12}\n",
                           "pair",
                           "path",
                           "P2P GB/s",
                           "staged GB/s",
                           "bidir GB/s",
                           "latency us");
        for (const auto& p : r.pairs) {
            out += fmt::format("{:<12}{:<8}{:>12}{:>12}{:>12}{:>12}{}\n",
                               fmt::format("GPU {} -> {}", p.src, p.dst),
                               model::to_string(p.path),
                               cell(p.p2p, 1e-9, "{:.1f}"),
                               cell(p.staged, 1e-9, "{:.1f}"),
                               cell(p.bidirectional, 1e-9, "{:.1f}"),
                               cell(p.latency, 1e6, "{:.1f}"),
                               p.p2p_slower_than_staged() ? "  P2P SLOWER THAN STAGED"
                               : p.error.empty()          ? ""
                                                          : "  " + p.error);
        }
    }
    for (const auto& d : r.devices) {
        out += fmt::format(
            "GPU {}: device-local {} GB/s, host->device {} GB/s, device->host {} GB/s{}\n",
            d.gpu,
            cell(d.device_local, 1e-9, "{:.1f}"),
            cell(d.host_to_device, 1e-9, "{:.1f}"),
            cell(d.device_to_host, 1e-9, "{:.1f}"),
            d.error.empty() ? "" : " (" + d.error + ")");
    }
    out += fmt::format("result: {}\n", bench_reason(r, exit_status));
    return out;
}

}  // namespace peergate::report::bench
