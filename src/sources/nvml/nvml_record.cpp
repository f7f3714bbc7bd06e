// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_record.hpp"

#include "sources/nvml/nvml_api.hpp"
#include "sources/nvml/nvml_census.hpp"
#include "sources/nvml/nvml_fabric.hpp"
#include "sources/nvml/nvml_field_values.hpp"
#include "sources/nvml/nvml_mig.hpp"
#include "sources/nvml/nvml_session.hpp"
#include "sources/nvml/nvml_topology.hpp"
#include "sources/nvml/nvml_worker.hpp"

#include <fmt/format.h>

#include <memory>

namespace peergate::nvml {

namespace {

// The census's bound: no GPU has this many links; it only stops a library that never
// answers INVALID_ARGUMENT.
constexpr unsigned kLinkIndexLimit = 64;
// nvmlNvLinkErrorCounter_t's DL_REPLAY .. DL_CRC_DATA: the model's first four counters.
constexpr std::size_t kDlCounters = 4;
static_assert(static_cast<std::size_t>(model::NvlinkCounter::crc_data) == kDlCounters - 1);
constexpr std::array<const char*, kRecordedCaps> kCapsNames{
    "READ", "WRITE", "NVLINK", "ATOMICS", "PROP"};

util::Expected<std::vector<nvmlDevice_t>> handles_of(NvmlCalls& nvml) {
    unsigned count = 0;
    if (const auto rc = nvml(nvml.api().nvmlDeviceGetCount_v2, &count); rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetCount_v2");
    }
    std::vector<nvmlDevice_t> handles(count, nullptr);
    for (unsigned i = 0; i < count; ++i) {
        if (const auto rc = nvml(nvml.api().nvmlDeviceGetHandleByIndex_v2, i, &handles[i]);
            rc != NVML_SUCCESS) {
            return nvml.failed(rc, "nvmlDeviceGetHandleByIndex_v2");
        }
    }
    return handles;
}

// The link's error counters, NVLink5's and the DL ones; one NVML does not answer (an older
// library, NOT_SUPPORTED on a GPU that keeps none) stays unknown.
model::NvlinkErrorCounts error_counts(NvmlCalls& nvml, nvmlDevice_t device, unsigned link) {
    model::NvlinkErrorCounts counts;
    read_field_counters(nvml, device, link, counts);
    if (nvml.api().nvmlDeviceGetNvLinkErrorCounter == nullptr) {
        return counts;
    }
    for (std::size_t k = 0; k < kDlCounters; ++k) {
        unsigned long long value = 0;  // NOLINT(google-runtime-int): the ABI's type
        const auto rc = nvml(nvml.api().nvmlDeviceGetNvLinkErrorCounter,
                             device,
                             link,
                             static_cast<nvmlNvLinkErrorCounter_t>(k),
                             &value);
        if (rc == NVML_SUCCESS) {
            counts.value[k] = value;
        }
    }
    return counts;
}

// The same walk as count_links (nvml_census.hpp), keeping every link. A failure
// other than "past the last index" / "no NVLink" leaves the GPU's links unknown.
util::Expected<void> walk_links(NvmlCalls& nvml, nvmlDevice_t device, RecordedGpu& gpu) {
    for (unsigned link = 0; link < kLinkIndexLimit; ++link) {
        nvmlEnableState_t state = NVML_FEATURE_DISABLED;
        const nvmlReturn_t rc = nvml(nvml.api().nvmlDeviceGetNvLinkState, device, link, &state);
        if (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED) {
            gpu.nvlink_slots = static_cast<int>(link);
            return {};
        }
        if (rc != NVML_SUCCESS) {
            return nvml.failed(rc, "nvmlDeviceGetNvLinkState");
        }
        if (state != NVML_FEATURE_ENABLED) {
            // Recorded too: a GPU whose links are all down then still lists them, and the
            // replay does not derive links from the matrix that NVML says are not there.
            gpu.links.push_back(RecordedNvlink{.link = static_cast<int>(link)});
            continue;
        }
        nvmlPciInfo_t remote{};
        const nvmlReturn_t remote_rc =
            nvml(nvml.api().nvmlDeviceGetNvLinkRemotePciInfo_v2, device, link, &remote);
        if (remote_rc != NVML_SUCCESS) {
            return nvml.failed(remote_rc, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
        }
        auto remote_pci = pci_of(remote);
        if (!remote_pci) {
            return util::unexpected(remote_pci.error());
        }
        gpu.links.push_back(
            RecordedNvlink{.link = static_cast<int>(link),
                           .active = true,
                           .to_switch = link_ends_at_switch(nvml, device, link, *remote_pci),
                           .remote = *remote_pci,
                           .errors = error_counts(nvml, device, link)});
    }
    return util::unexpected(util::ErrorCode::unavailable,
                            "NVML answered for every link index up to 64");
}

util::Expected<RecordedGpu> record_gpu(NvmlCalls& nvml,
                                       nvmlDevice_t device,
                                       int index,
                                       std::vector<std::string>& notes) {
    auto identity = read_identity(nvml, device, index);
    if (!identity) {
        return util::unexpected(identity.error());
    }
    RecordedGpu gpu{.identity = std::move(*identity)};
    if (auto walked = walk_links(nvml, device, gpu); !walked) {
        gpu.nvlink_slots.reset();
        gpu.links.clear();
        notes.push_back(
            fmt::format("NVML: GPU {} NVLinks unknown ({})", index, walked.error().message));
    }
    if (auto fabric = read_fabric(nvml, device)) {
        gpu.fabric = std::move(*fabric);
    } else {
        notes.push_back(fmt::format(
            "NVML: GPU {} fabric registration unknown ({})", index, fabric.error().message));
    }
    if (auto mig = read_mig_mode(nvml, device)) {
        gpu.mig = *mig;
    } else {
        notes.push_back(
            fmt::format("NVML: GPU {} MIG mode unknown ({})", index, mig.error().message));
    }
    return gpu;
}

std::optional<StatusMatrix> status_matrix(NvmlCalls& nvml,
                                          const std::vector<nvmlDevice_t>& handles,
                                          std::size_t caps,
                                          std::vector<std::string>& notes) {
    const std::size_t n = handles.size();
    StatusMatrix matrix(n, std::vector<std::string>(n, "X"));
    for (std::size_t p = 0; p < n; ++p) {
        for (std::size_t q = 0; q < n; ++q) {
            if (p == q) {
                continue;  // NVML has no self status; the diagonal is X as in topo -p2p
            }
            nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
            const auto rc = nvml(nvml.api().nvmlDeviceGetP2PStatus,
                                 handles[p],
                                 handles[q],
                                 static_cast<nvmlGpuP2PCapsIndex_t>(caps),
                                 &status);
            const auto token = rc == NVML_SUCCESS ? p2p_status_token(status) : std::nullopt;
            if (!token) {
                notes.push_back(fmt::format(
                    "NVML: P2P status {} not recorded: GPU {} -> GPU {}: {}",
                    kCapsNames[caps],
                    p,
                    q,
                    rc == NVML_SUCCESS
                        ? fmt::format("status {} has no token", static_cast<int>(status))
                        : describe_nvml_error(nvml.api(), rc, "nvmlDeviceGetP2PStatus")));
                return std::nullopt;
            }
            matrix[p][q] = *token;
        }
    }
    return matrix;
}

util::Expected<NvmlRecord> record_with(const util::DynamicLibrary& library,
                                       const NvmlRecordOptions& options) {
    choose_simulated_machine(library, options.simulated_machine);
    auto api = load_nvml_api(library);
    if (!api) {
        return util::unexpected(util::ErrorCode::unavailable, api.error().message);
    }
    auto session = NvmlSession::open(*api);
    if (!session) {
        return util::unexpected(session.error());
    }
    NvmlCalls calls(*session, options.host_root);
    return read_nvml_record(calls, options.with_topology);
}

}  // namespace

std::optional<std::string> p2p_status_token(nvmlGpuP2PStatus_t status) {
    static constexpr std::array<const char*, 7> kTokens{"OK", "CNS", "GNS", "TNS", "DR", "NS", "U"};
    const auto value = static_cast<int>(status);
    if (value < 0 || value >= static_cast<int>(kTokens.size())) {
        return std::nullopt;
    }
    return kTokens[static_cast<std::size_t>(value)];
}

util::Expected<NvmlRecord> read_nvml_record(NvmlCalls& nvml, bool with_topology) {
    auto handles = handles_of(nvml);
    if (!handles) {
        return util::unexpected(handles.error());
    }
    NvmlRecord record;
    for (std::size_t i = 0; i < handles->size(); ++i) {
        auto gpu = record_gpu(nvml, (*handles)[i], static_cast<int>(i), record.notes);
        if (!gpu) {
            return util::unexpected(gpu.error());
        }
        record.gpus.push_back(std::move(*gpu));
    }
    for (std::size_t caps = 0; caps < kRecordedCaps; ++caps) {
        record.p2p[caps] = status_matrix(nvml, *handles, caps, record.notes);
    }
    if (with_topology && handles->size() >= 2) {
        auto topology = read_nvml_topology(nvml);
        if (topology) {
            record.topology = std::move(*topology);
        } else {
            record.notes.push_back("NVML gave no matrix: " + topology.error().message);
        }
    }
    return record;
}

util::Expected<NvmlRecord> record_nvml(const NvmlRecordOptions& options) {
    // The worker writes here; shared, because an abandoned worker outlives this call.
    auto slot = std::make_shared<std::optional<util::Expected<NvmlRecord>>>();
    auto ran = run_on_nvml_worker(
        options.libraries, options.watchdog, [slot, options](const util::DynamicLibrary& library) {
            *slot = record_with(library, options);
        });
    if (!ran) {
        return util::unexpected(std::move(ran).error());
    }
    return std::move(**slot);
}

}  // namespace peergate::nvml
