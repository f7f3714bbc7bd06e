// SPDX-License-Identifier: Apache-2.0
#include "pipeline/identity_join.hpp"

#include "policy/gate/control.hpp"
#include "policy/gate/env_plan.hpp"
#include "sources/cuda/cuda_api.hpp"
#include "sources/cuda/cuda_devices.hpp"
#include "util/dynamic_library.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace peergate::pipeline {

util::EnvMap child_cuda_environment(const util::EnvMap& env,
                                    const policy::gate::Selection& selection,
                                    bool pin_selection,
                                    const std::vector<model::Gpu>& host) {
    util::EnvMap child = env;
    const auto pinning = policy::gate::pinning_of(selection, pin_selection, host);
    if (pinning.device_order) {
        child.set(std::string(policy::gate::kDeviceOrder), *pinning.device_order);
    }
    if (pinning.visible_devices) {
        child.set(std::string(policy::gate::kVisibleDevices), *pinning.visible_devices);
    }
    return child;
}

util::Expected<std::vector<model::PciAddress>> parse_cuda_visible(const std::string& text) {
    std::vector<model::PciAddress> out;
    for (const auto line : util::split(text, '\n')) {
        const auto trimmed = util::trim(line);
        if (trimmed.empty()) {
            continue;
        }
        auto pci = model::PciAddress::parse(trimmed);
        if (!pci) {
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format("cuda-visible printed '{}', not a PCI bus id", trimmed));
        }
        out.push_back(*pci);
    }
    return out;
}

namespace {

constexpr std::string_view kCudaInitFailed = "cuda-init-failed ";

// The helper's report of a driver that loaded and did not initialise: its CUresult and the
// driver's words for the call that failed ("cuInit failed: 802 NAME"), which the gate's veto
// quotes, on one line.
std::string init_failure_line(const util::Error& error) {
    std::string words = error.message;
    std::replace(words.begin(), words.end(), '\n', ' ');
    return fmt::format("{}{} {}\n", kCudaInitFailed, error.vendor_status, words);
}

}  // namespace

std::optional<policy::gate::CudaInitFailure> parse_cuda_init_failure(const std::string& out) {
    const auto first = util::trim(util::split(out, '\n').front());
    if (!first.starts_with(kCudaInitFailed)) {
        return std::nullopt;
    }
    const auto rest = first.substr(kCudaInitFailed.size());
    const auto space = rest.find(' ');
    const auto status = util::parse_int<int>(rest.substr(0, space));
    if (!status || *status == 0) {
        return std::nullopt;
    }
    const auto detail =
        space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    return policy::gate::CudaInitFailure{*status, std::string(util::trim(detail))};
}

std::string self_executable() {
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : path.string();
}

bool cuda_library_loads(const std::string& path) {
    if (path.empty()) {
        return false;
    }
    if (path.find('/') != std::string::npos) {
        std::error_code ec;
        return std::filesystem::is_regular_file(path, ec);  // the helper dlopens it for real
    }
    return util::DynamicLibrary::open(path).has_value();
}

util::Expected<std::vector<model::PciAddress>> enumerate_child_visible(
    const std::string& helper_binary,
    const util::Seams& seams,
    const util::EnvMap& child_env,
    std::chrono::milliseconds timeout,
    std::optional<policy::gate::CudaInitFailure>* init_failure) {
    // PEERGATE_SIMULATE would make the helper materialise the simulated host again; the
    // driver it stands in for reads PEERGATE_SIM_MACHINE, which stays, and --cuda-lib names
    // the library this process resolved. Nothing else differs from the child's environment.
    util::EnvMap env = child_env;
    env.unset("PEERGATE_SIMULATE");
    util::Command command{
        .argv = {helper_binary, "--cuda-lib", seams.cuda_library, "cuda-visible"},
        .env = std::move(env),
        .timeout = timeout,
        .max_output_bytes = 1U << 20U,
    };
    auto result = util::run_process(command);
    if (!result) {
        return util::unexpected(result.error());
    }
    if (!result->succeeded()) {
        std::string why = util::describe_failure(*result, timeout);
        if (const auto err = util::trim(result->err); !err.empty()) {
            why += ": " + std::string(err);
        }
        if (init_failure != nullptr) {
            *init_failure = parse_cuda_init_failure(result->out);
        }
        return util::unexpected(util::ErrorCode::unavailable, "the CUDA helper " + why);
    }
    return parse_cuda_visible(result->out);
}

CudaVisibleAnswer list_cuda_visible(const util::Seams& seams) {
    auto driver = sources::cuda::load_cuda_driver(seams.cuda_library, seams.simulated_machine);
    if (!driver) {
        return {.out = {}, .error = driver.error()};
    }
    // The library loaded: a failure now is the driver's answer to cuInit (or to the version
    // query), with its CUresult in vendor_status.
    if (auto init = sources::cuda::initialise_cuda_driver(**driver); !init) {
        return {.out = init_failure_line(init.error()), .error = init.error()};
    }
    auto devices = sources::cuda::enumerate_devices((*driver)->api);
    if (!devices) {
        return {.out = {}, .error = devices.error()};
    }
    std::string lines;
    for (const auto& device : *devices) {
        if (!device.pci) {
            return {
                .out = {},
                .error = util::Error{.code = util::ErrorCode::invalid_input,
                                     .message = fmt::format(
                                         "CUDA device {} reported a PCI bus id that does not parse",
                                         device.ordinal)}};
        }
        lines += device.pci->to_nvml() + "\n";
    }
    return {.out = std::move(lines), .error = std::nullopt};
}

}  // namespace peergate::pipeline
