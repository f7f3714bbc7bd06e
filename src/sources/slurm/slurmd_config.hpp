// SPDX-License-Identifier: Apache-2.0
// Which slurm.conf the slurmd that started this process reads, so that `fleet health --drain`,
// run as its HealthCheckProgram with only PWD and SLURMD_NODENAME in its environment
// (docs/ecosystem.md §3.2), can point scontrol at the same file. Only a parent that is slurmd
// and runs wholly as root is believed: its command line and environment are root's choice,
// and nothing an ordinary user writes may redirect root's scontrol (docs/security.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace peergate::sources::slurm {

// A process as /proc shows it; each field "" when it could not be read.
struct ProcessView {
    std::string exe;      // the target of /proc/PID/exe
    std::string status;   // /proc/PID/status
    std::string cmdline;  // /proc/PID/cmdline: the arguments, each ended by a NUL
    std::string environ;  // /proc/PID/environ: NAME=value, each ended by a NUL
};

// What the parent says about slurm.conf: `path` when it names one, and in any case `why`, for
// --verbose ("slurmd's -f", "the parent is /bin/bash, not slurmd", ...).
struct SlurmdConfig {
    std::optional<std::string> path;
    std::string why;
};

// The FILE of slurmd's `-f FILE` (also `-fFILE` and in a cluster such as `-Df FILE`), parsed
// as slurmd's getopt_long does ("bcCd:Df:F::GhL:Mn:N:svVZ" and its long options, Slurm 22.05
// to 24.x); nullopt when it has none. The last -f wins, as in slurmd.
std::optional<std::string> conf_from_cmdline(std::string_view cmdline);

// The value of `name` in a NUL-separated environment block; nullopt when it is not set.
std::optional<std::string> environ_value(std::string_view environ, std::string_view name);

// True when the status's Uid: line shows real, effective, saved and filesystem uid 0: a
// set-user-ID program a user started has real uid != 0, and its arguments are the user's.
bool runs_as_root(std::string_view status);

// The slurm.conf that `parent` reads if it is a slurmd (its executable named slurmd, or
// slurmd-wlm, Debian's) run by root: `-f FILE`, else its
// SLURM_CONF (slurmd's own order); only an absolute path, since slurmd's working directory
// then is not ours.
SlurmdConfig slurmd_config_of(const ProcessView& parent);

// /proc/PID as root sees it, each file read with a bound (a slurmd's arguments and
// environment are small; a larger one is left unread).
ProcessView read_process(int pid);

}  // namespace peergate::sources::slurm
