// SPDX-License-Identifier: Apache-2.0
// The prefix of an installed module, for every libdir GNUInstallDirs may choose: --simulate and
// the identity helper find their parts under it (peergate/install_layout.hpp).
#include "pipeline/module_location.hpp"

#include <gtest/gtest.h>

namespace peergate::pipeline {
namespace {

TEST(ModuleLocation, ThePrefixIsTheModuleFolderLessItsInstallDir) {
    EXPECT_EQ(prefix_of("/usr/local/bin", "bin"), "/usr/local");
    EXPECT_EQ(prefix_of("/usr/local/lib", "lib"), "/usr/local");
    EXPECT_EQ(prefix_of("/usr/lib64", "lib64"), "/usr");
    EXPECT_EQ(prefix_of("/usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"), "/usr");
    EXPECT_EQ(prefix_of("/opt/pg/lib/x86_64-linux-gnu/", "lib/x86_64-linux-gnu"), "/opt/pg");
}

TEST(ModuleLocation, AModuleOutsideItsInstallDirTakesItsParent) {
    // A library copied by hand next to a program: the old rule, one folder up.
    EXPECT_EQ(prefix_of("/home/me/app/lib", "lib/x86_64-linux-gnu"), "/home/me/app");
    EXPECT_EQ(prefix_of("/home/me/tools", "bin"), "/home/me");
}

}  // namespace
}  // namespace peergate::pipeline
