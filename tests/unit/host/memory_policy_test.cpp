// SPDX-License-Identifier: Apache-2.0
// This process's NUMA memory policy, read and set through the kernel
// (sources/host/memory_policy.cpp). Binding runs in a forked child so that the test
// process keeps its own policy.
#include "sources/host/memory_policy.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace peergate::sources::host {
namespace {

// The child's exit status: 0 when the policy read back is "bind", 1 when binding failed,
// 2 when it read back something else.
int bind_in_child(const std::vector<int>& nodes) {
    const pid_t child = ::fork();
    if (child == 0) {
        if (!bind_memory_to_nodes(nodes)) {
            ::_exit(1);
        }
        const auto mode = memory_policy_mode();
        ::_exit(mode && std::strcmp(*mode, "bind") == 0 ? 0 : 2);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(MemoryPolicy, BindsToAnAllowedNodeAndReadsItBack) {
    const auto allowed = allowed_memory_nodes();
    if (!allowed) {
        GTEST_SKIP() << "this kernel has no NUMA support: " << allowed.error().message;
    }
    ASSERT_FALSE(allowed->empty());
    const std::string before = memory_policy_mode().value_or("?");
    EXPECT_EQ(bind_in_child({allowed->front()}), 0);
    EXPECT_EQ(memory_policy_mode().value_or("?"), before);
}

TEST(MemoryPolicy, RefusesNodesItCannotName) {
    EXPECT_FALSE(bind_memory_to_nodes({}));
    const auto negative = bind_memory_to_nodes({-1});
    ASSERT_FALSE(negative);
    EXPECT_EQ(negative.error().message, "NUMA node -1 is out of range");
    EXPECT_FALSE(bind_memory_to_nodes({4096}));
}

TEST(MemoryPolicy, ANodeOutsideTheCpusetIsAnError) {
    const auto allowed = allowed_memory_nodes();
    if (!allowed) {
        GTEST_SKIP() << "this kernel has no NUMA support: " << allowed.error().message;
    }
    const int outside = allowed->back() + 1;  // the kernel answers EINVAL for it
    EXPECT_EQ(bind_in_child({outside}), 1);
}

}  // namespace
}  // namespace peergate::sources::host
