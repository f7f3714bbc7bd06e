// SPDX-License-Identifier: Apache-2.0
// Where the code is installed: the folder of the binary this code is linked into (the
// peergate executable, or libpeergate.so when another program such as python3's ctypes
// loaded the C API), the prefix above it, and the parts installed there
// (peergate/install_layout.hpp says where, relative to the prefix).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace peergate::pipeline {

// The executable's folder, or libpeergate.so's when the code runs inside another program
// (/proc/self/exe names the host program there).
std::filesystem::path module_dir();

// The prefix of a module in `dir`: `dir` less the trailing folders of `relative_dir` (the
// libdir for a library, the bindir for the executable), e.g. /usr for /usr/lib/x86_64-linux-gnu
// and "lib/x86_64-linux-gnu". Where `dir` does not end so (a module moved by hand), its parent.
std::filesystem::path prefix_of(const std::filesystem::path& dir, std::string_view relative_dir);

// The prefix this code is installed under (or built in: the build tree mirrors it).
std::filesystem::path install_prefix();

// The peergate executable of the same installation (<prefix>/<bindir>/peergate beside
// <prefix>/<libdir>/libpeergate.so), which runs the identity join's CUDA helper; "" when
// there is none to run.
std::string installed_peergate();

}  // namespace peergate::pipeline
