// SPDX-License-Identifier: Apache-2.0
// peergate-sim-nvidia-smi: a stand-in for nvidia-smi that prints what the machine file
// named by PEERGATE_SIM_MACHINE says, in the real tool's layout, and misbehaves the way
// the file's "smi" faults say (hang, exit, truncated). `peergate --simulate` runs it
// through the same subprocess code as the real tool.
#include "sim/machine/smi_text.hpp"
#include "snapshot/derived.hpp"
#include "snapshot/machine_file.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using peergate::snapshot::MachineFault;
using peergate::snapshot::MachineFile;

constexpr int kUsage = 2;

struct Request {
    std::string key;  // "topo -m", "topo -p2p", "--query-gpu", "-L": what faults match
    char p2p_letter = 'r';
    std::string query_fields;
    std::string format = "csv";
};

int fail(const std::string& message) {
    fmt::print(stderr, "peergate-sim-nvidia-smi: {}\n", message);
    return kUsage;
}

// "--name=value" or "--name value"; advances k past what it used.
std::optional<std::string> option_value(const std::vector<std::string>& args,
                                        std::size_t& k,
                                        std::string_view name) {
    const std::string& arg = args[k];
    if (arg.rfind(std::string(name) + "=", 0) == 0) {
        return arg.substr(name.size() + 1);
    }
    if (arg == name && k + 1 < args.size()) {
        return args[++k];
    }
    return std::nullopt;
}

std::optional<Request> parse_topo(const std::vector<std::string>& args) {
    if (args.size() == 2 && (args[1] == "-m" || args[1] == "--matrix")) {
        return Request{.key = "topo -m"};
    }
    if (args.size() == 3 && (args[1] == "-p2p" || args[1] == "--p2pstatus") &&
        args[2].size() == 1) {
        return Request{.key = "topo -p2p", .p2p_letter = args[2][0]};
    }
    return std::nullopt;
}

std::optional<Request> parse_args(const std::vector<std::string>& args) {
    if (args.empty()) {
        return std::nullopt;
    }
    if (args[0] == "topo") {
        return parse_topo(args);
    }
    if (args.size() == 1 && (args[0] == "-L" || args[0] == "--list-gpus")) {
        return Request{.key = "-L"};
    }
    Request request{.key = "--query-gpu"};
    for (std::size_t k = 0; k < args.size(); ++k) {
        if (auto fields = option_value(args, k, "--query-gpu")) {
            request.query_fields = *fields;
        } else if (auto format = option_value(args, k, "--format")) {
            request.format = *format;
        } else {
            return std::nullopt;
        }
    }
    return request.query_fields.empty() ? std::nullopt : std::optional<Request>(request);
}

std::optional<MachineFault> fault_for(const MachineFile& machine, const std::string& key) {
    for (const auto& fault : peergate::snapshot::faults_for(machine, "smi")) {
        if (fault.call.empty() || fault.call == key) {
            return fault;
        }
    }
    return std::nullopt;
}

// Faults that end the run before any output: a hang, a driver failure, a missing tool.
std::optional<int> apply_terminal_fault(const MachineFault& fault) {
    if (fault.effect == "hang") {
        for (;;) {
            ::pause();  // until a signal ends us, as a wedged driver call would
        }
    }
    if (fault.effect == "exit") {
        fmt::print("{}\n", peergate::sim::kSmiDriverFailure);
        std::fflush(stdout);
        return fault.code != 0 ? fault.code : 9;
    }
    if (fault.effect == "missing") {
        // --simulate never runs us with this fault (the seam points nowhere); run by hand,
        // answer as a shell would for a tool that is not installed.
        fmt::print(stderr, "nvidia-smi: command not found\n");
        return 127;
    }
    return std::nullopt;
}

bool is_default_listing(const Request& request) {
    return request.query_fields == "index,name,pci.bus_id,uuid" && request.format == "csv,noheader";
}

int print_topo_p2p(const MachineFile& machine, char letter, std::size_t rows) {
    peergate::snapshot::P2pCaps caps{};
    if (!peergate::snapshot::p2p_caps_from_letter(letter, caps)) {
        return fail(fmt::format("topo -p2p: '{}' is not one of r, w, n, a, p", letter));
    }
    fmt::print("{}", peergate::sim::render_topo_p2p(machine, caps, rows));
    return 0;
}

int print_query(const MachineFile& machine, const Request& request, std::size_t rows) {
    if (!machine.recorded_query_gpu.empty() && is_default_listing(request) && rows == SIZE_MAX) {
        fmt::print("{}", machine.recorded_query_gpu);
        return 0;
    }
    auto format = peergate::sim::parse_csv_format(request.format);
    if (!format) {
        return fail("--format: " + format.error().message);
    }
    auto text = peergate::sim::render_query_gpu(machine, request.query_fields, *format, rows);
    if (!text) {
        fmt::print("{}\n", text.error().message);
        return kUsage;
    }
    fmt::print("{}", *text);
    return 0;
}

int answer(const MachineFile& machine, const Request& request, std::size_t rows) {
    if (request.key == "topo -m") {
        const bool recorded = !machine.recorded_topo_m.empty() && rows == SIZE_MAX;
        fmt::print(
            "{}", recorded ? machine.recorded_topo_m : peergate::sim::render_topo_m(machine, rows));
        return 0;
    }
    if (request.key == "topo -p2p") {
        return print_topo_p2p(machine, request.p2p_letter, rows);
    }
    if (request.key == "-L") {
        fmt::print("{}", peergate::sim::render_list(machine, rows));
        return 0;
    }
    return print_query(machine, request, rows);
}

// What nvidia-smi prints, on stdout, when its NVML and the running kernel module differ: the
// library's version as major.minor, and exit status 18 (NVML_ERROR_LIB_RM_VERSION_MISMATCH).
int mismatch(const peergate::snapshot::MachineFile& machine) {
    const auto& version = machine.driver_version;
    fmt::print(
        "Failed to initialize NVML: Driver/library version mismatch\n"
        "NVML library version: {}\n",
        version.substr(0, version.find('.', version.find('.') + 1)));
    return 18;
}

int run(const std::vector<std::string>& args) {
    const auto request = parse_args(args);
    if (!request) {
        return fail(
            "usage: topo -m | topo -p2p r|w|n|a|p | --query-gpu=FIELDS "
            "--format=csv[,noheader][,nounits] | -L");
    }
    const char* path = std::getenv("PEERGATE_SIM_MACHINE");  // NOLINT(concurrency-mt-unsafe)
    if (path == nullptr || *path == '\0') {
        return fail("PEERGATE_SIM_MACHINE names no machine file");
    }
    auto machine = peergate::snapshot::load_machine(path);
    if (!machine) {
        return fail(machine.error().message);
    }
    if (peergate::snapshot::driver_mismatch(*machine)) {
        return mismatch(*machine);
    }
    std::size_t rows = SIZE_MAX;
    if (const auto fault = fault_for(*machine, request->key)) {
        if (const auto status = apply_terminal_fault(*fault)) {
            return *status;
        }
        if (fault->effect == "truncated") {
            rows = machine->gpus.size() / 2;  // cut off mid-table, exit status still 0
        }
    }
    return answer(*machine, *request, rows);
}

}  // namespace

int main(int argc, char** argv) {
    return run(std::vector<std::string>(argv + 1, argv + argc));
}
