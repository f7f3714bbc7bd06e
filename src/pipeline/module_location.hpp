// SPDX-License-Identifier: Apache-2.0
// Where the code is installed: the folder of the binary this code is linked into (the
// peergate executable, or libpeergate.so when another program such as python3's ctypes
// loaded the C API), and the parts installed beside it.
#pragma once

#include <filesystem>
#include <string>

namespace peergate::pipeline {

// The executable's folder, or libpeergate.so's when the code runs inside another program
// (/proc/self/exe names the host program there).
std::filesystem::path module_dir();

// The peergate executable of the same installation (<prefix>/bin/peergate beside
// <prefix>/lib/libpeergate.so), which runs the identity join's CUDA helper; "" when
// there is none to run.
std::string installed_peergate();

}  // namespace peergate::pipeline
