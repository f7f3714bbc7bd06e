// SPDX-License-Identifier: Apache-2.0
#include "sources/slurm/slurmd_config.hpp"

#include "util/bounded_read.hpp"
#include "util/strings.hpp"

#include <array>
#include <filesystem>
#include <vector>

namespace peergate::sources::slurm {

namespace {

// slurmd's short options that take an argument ("bcCd:Df:F::GhL:Mn:N:svVZ"; F's is optional,
// so only attached) and its long ones (src/slurmd/slurmd/slurmd.c, _process_cmdline).
constexpr std::string_view kShortWithArgument = "dfLnN";
constexpr std::array<std::string_view, 6> kLongWithArgument = {
    "authinfo", "conf", "conf-server", "extra", "instance-id", "instance-type"};

// The NUL-ended fields of a /proc block, without the empty one after the last NUL.
std::vector<std::string_view> nul_fields(std::string_view block) {
    auto fields = util::split(block, '\0');
    if (!fields.empty() && fields.back().empty()) {
        fields.pop_back();
    }
    return fields;
}

bool long_takes_argument(std::string_view option) {
    for (const auto name : kLongWithArgument) {
        if (option == name) {
            return true;
        }
    }
    return false;
}

// Index of the last argument a long option `arg` ("--name" or "--name=value") uses.
std::size_t skip_long(std::string_view arg, std::size_t i) {
    return arg.find('=') == std::string_view::npos && long_takes_argument(arg.substr(2)) ? i + 1
                                                                                         : i;
}

std::string without_deleted(std::string exe) {
    constexpr std::string_view kDeleted = " (deleted)";  // the binary was replaced (upgrade)
    if (exe.ends_with(kDeleted)) {
        exe.resize(exe.size() - kDeleted.size());
    }
    return exe;
}

}  // namespace

std::optional<std::string> conf_from_cmdline(std::string_view cmdline) {
    const auto args = nul_fields(cmdline);
    std::optional<std::string> conf;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const auto arg = args[i];
        if (arg == "--") {
            break;
        }
        if (arg.starts_with("--")) {
            i = skip_long(arg, i);
            continue;
        }
        if (!arg.starts_with('-')) {
            continue;  // getopt permutes: an operand does not end the options
        }
        for (std::size_t j = 1; j < arg.size(); ++j) {
            if (arg[j] == 'F') {
                break;  // its optional argument is the rest of this one
            }
            if (kShortWithArgument.find(arg[j]) == std::string_view::npos) {
                continue;
            }
            std::string_view value = arg.substr(j + 1);
            if (value.empty() && i + 1 < args.size()) {
                value = args[++i];
            }
            if (arg[j] == 'f') {
                conf = std::string(value);
            }
            break;
        }
    }
    return conf;
}

std::optional<std::string> environ_value(std::string_view environ, std::string_view name) {
    for (const auto entry : nul_fields(environ)) {
        if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
            return std::string(entry.substr(name.size() + 1));  // the first, as getenv's
        }
    }
    return std::nullopt;
}

bool runs_as_root(std::string_view status) {
    for (const auto line : util::split_lines(status)) {
        if (!line.starts_with("Uid:")) {
            continue;
        }
        const auto uids = util::split_whitespace(line.substr(4));
        if (uids.size() != 4) {
            return false;
        }
        for (const auto uid : uids) {
            if (uid != "0") {
                return false;
            }
        }
        return true;
    }
    return false;
}

SlurmdConfig slurmd_config_of(const ProcessView& parent) {
    if (parent.exe.empty()) {
        return {.why = "the parent process could not be read"};
    }
    const std::string exe = without_deleted(parent.exe);
    // Debian's /usr/sbin/slurmd is an alternatives link to slurmd-wlm: exe names the target.
    const auto name = std::filesystem::path(exe).filename();
    if (name != "slurmd" && name != "slurmd-wlm") {
        return {.why = "the parent is " + exe + ", not slurmd"};
    }
    if (!runs_as_root(parent.status)) {
        return {.why = "the parent slurmd does not run wholly as root"};
    }
    std::string from = "slurmd's -f";
    auto path = conf_from_cmdline(parent.cmdline);
    if (!path) {
        from = "slurmd's SLURM_CONF";
        path = environ_value(parent.environ, "SLURM_CONF");
    }
    if (!path) {
        return {.why = "slurmd names no slurm.conf: scontrol's default"};
    }
    if (!path->starts_with('/')) {
        return {.why = from + " " + *path + " is not an absolute path"};
    }
    return {.path = path, .why = from};
}

ProcessView read_process(int pid) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/";
    ProcessView view;
    std::error_code ec;
    view.exe = std::filesystem::read_symlink(dir + "exe", ec).string();
    const auto read = [&dir](const char* name, std::size_t limit) {
        return util::read_regular_file(dir + name, limit).value_or("");
    };
    view.status = read("status", 64 * 1024);
    view.cmdline = read("cmdline", 64 * 1024);
    view.environ = read("environ", 256 * 1024);
    return view;
}

}  // namespace peergate::sources::slurm
