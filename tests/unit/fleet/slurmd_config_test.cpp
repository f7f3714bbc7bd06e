// SPDX-License-Identifier: Apache-2.0
// Which slurm.conf the parent slurmd reads (sources/slurm/slurmd_config): its -f as slurmd's
// getopt parses it, else its SLURM_CONF, believed only from a slurmd that runs wholly as root
// (docs/security.md).
#include "sources/slurm/slurmd_config.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate {
namespace {

using namespace std::string_literals;
using sources::slurm::conf_from_cmdline;
using sources::slurm::environ_value;

constexpr const char* kRootStatus =
    "Name:\tslurmd\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t812\nPPid:\t1\n"
    "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n";

TEST(SlurmdConfig, TheFileOfDashF) {
    EXPECT_EQ(conf_from_cmdline("/usr/sbin/slurmd\0-f\0/tmp/c/slurm.conf\0-N\0n1\0"s),
              "/tmp/c/slurm.conf");
    EXPECT_EQ(conf_from_cmdline("slurmd\0-f/etc/x.conf\0"s), "/etc/x.conf");
    EXPECT_EQ(conf_from_cmdline("slurmd\0-Df\0/etc/y.conf\0"s), "/etc/y.conf");
    EXPECT_EQ(conf_from_cmdline("slurmd\0-f\0/a\0-f\0/b\0"s), "/b");  // the last wins
    EXPECT_EQ(conf_from_cmdline("slurmd\0-D\0-s\0"s), std::nullopt);
    EXPECT_EQ(conf_from_cmdline(""s), std::nullopt);
    EXPECT_EQ(conf_from_cmdline("slurmd\0-f\0"s), "");  // slurmd itself would refuse this
}

TEST(SlurmdConfig, AnOptionsArgumentIsNotAnOption) {
    // -N's and --conf's arguments, -F's attached one, operands and "--" as getopt sees them.
    EXPECT_EQ(conf_from_cmdline("slurmd\0-N\0-f\0"s), std::nullopt);
    EXPECT_EQ(conf_from_cmdline("slurmd\0--conf\0-f /x\0-f\0/real\0"s), "/real");
    EXPECT_EQ(conf_from_cmdline("slurmd\0--conf=Gres=gpu:1\0-f\0/real\0"s), "/real");
    EXPECT_EQ(conf_from_cmdline("slurmd\0-Ff\0--systemd\0"s), std::nullopt);
    EXPECT_EQ(conf_from_cmdline("slurmd\0operand\0-f\0/after\0"s), "/after");
    EXPECT_EQ(conf_from_cmdline("slurmd\0--\0-f\0/not\0"s), std::nullopt);
}

TEST(SlurmdConfig, EnvironmentValues) {
    const auto env = "PATH=/bin\0SLURM_CONF=/etc/a.conf\0SLURM_CONF=/etc/b.conf\0X=\0"s;
    EXPECT_EQ(environ_value(env, "SLURM_CONF"), "/etc/a.conf");  // the first, as getenv
    EXPECT_EQ(environ_value(env, "X"), "");
    EXPECT_EQ(environ_value(env, "SLURM"), std::nullopt);
    EXPECT_EQ(environ_value("SLURM_CONFX=/y\0"s, "SLURM_CONF"), std::nullopt);
}

TEST(SlurmdConfig, OnlyAWhollyRootProcess) {
    EXPECT_TRUE(sources::slurm::runs_as_root(kRootStatus));
    EXPECT_FALSE(sources::slurm::runs_as_root("Uid:\t1000\t0\t0\t0\n"));  // set-user-ID
    EXPECT_FALSE(sources::slurm::runs_as_root("Uid:\t0\t0\t0\t1000\n"));
    EXPECT_FALSE(sources::slurm::runs_as_root("Uid:\t0\t0\n"));
    EXPECT_FALSE(sources::slurm::runs_as_root("Name:\tslurmd\n"));
}

TEST(SlurmdConfig, FromARootSlurmdOnly) {
    sources::slurm::ProcessView slurmd{.exe = "/usr/sbin/slurmd",
                                       .status = kRootStatus,
                                       .cmdline = "/usr/sbin/slurmd\0-f\0/tmp/pg/slurm.conf\0"s,
                                       .environ = "SLURM_CONF=/etc/other.conf\0"s};
    auto found = sources::slurm::slurmd_config_of(slurmd);
    EXPECT_EQ(found.path, "/tmp/pg/slurm.conf");  // -f before SLURM_CONF, as slurmd reads
    EXPECT_EQ(found.why, "slurmd's -f");
    slurmd.cmdline = "/usr/sbin/slurmd\0-D\0"s;
    found = sources::slurm::slurmd_config_of(slurmd);
    EXPECT_EQ(found.path, "/etc/other.conf");
    EXPECT_EQ(found.why, "slurmd's SLURM_CONF");
    slurmd.environ.clear();
    EXPECT_EQ(sources::slurm::slurmd_config_of(slurmd).path, std::nullopt);

    auto other = slurmd;
    other.cmdline = "/usr/sbin/slurmd\0-f\0slurm.conf\0"s;  // relative to slurmd's own cwd
    EXPECT_EQ(sources::slurm::slurmd_config_of(other).path, std::nullopt);
    other.exe = "/usr/sbin/slurmd (deleted)";  // upgraded under a running slurmd
    other.cmdline = slurmd.cmdline + "-f\0/etc/up.conf\0"s;
    EXPECT_EQ(sources::slurm::slurmd_config_of(other).path, "/etc/up.conf");
    // Debian's /usr/sbin/slurmd is an alternatives link to slurmd-wlm, which /proc/PID/exe names.
    other.exe = "/usr/sbin/slurmd-wlm";
    EXPECT_EQ(sources::slurm::slurmd_config_of(other).path, "/etc/up.conf");
}

TEST(SlurmdConfig, NotFromAnythingElse) {
    const sources::slurm::ProcessView shell{
        .exe = "/usr/bin/bash", .status = kRootStatus, .cmdline = "bash\0-f\0/tmp/evil.conf\0"s};
    auto found = sources::slurm::slurmd_config_of(shell);
    EXPECT_EQ(found.path, std::nullopt);
    EXPECT_EQ(found.why, "the parent is /usr/bin/bash, not slurmd");
    auto users = shell;
    users.exe = "/home/u/slurmd";
    users.status = "Uid:\t1000\t1000\t1000\t1000\n";
    users.cmdline = "slurmd\0-f\0/tmp/evil.conf\0"s;
    EXPECT_EQ(sources::slurm::slurmd_config_of(users).path, std::nullopt);
    EXPECT_EQ(sources::slurm::slurmd_config_of({}).path, std::nullopt);  // unreadable
}

}  // namespace
}  // namespace peergate
