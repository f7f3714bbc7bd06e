// SPDX-License-Identifier: Apache-2.0
// peergate-cli-docs DIR: writes the man pages (peergate.1, peergate-COMMAND.1, ...) and the
// bash completion (peergate.bash) into DIR, from the command line the program parses
// (cli::describe_app). The build runs it; docs/packaging.md says where the files go.
#include "cli/app.hpp"
#include "cli/docs/bash_completion.hpp"
#include "cli/docs/cli_reference.hpp"
#include "cli/docs/man_page.hpp"
#include "peergate/version.hpp"
#include "util/atomic_file.hpp"

#include <fmt/format.h>

#include <exception>

namespace {

using peergate::cli::docs::CommandReference;

bool write(const std::string& path, const std::string& content) {
    if (auto written = peergate::util::write_file_atomically(path, content); !written) {
        fmt::print(stderr, "peergate-cli-docs: {}\n", written.error().message);
        return false;
    }
    return true;
}

bool write_pages(const CommandReference& command,
                 const CommandReference& program,
                 const std::string& dir) {
    const std::string version = fmt::format("peergate {}", peergate::kVersion);
    bool ok = write(fmt::format("{}/{}.1", dir, command.page_name()),
                    peergate::cli::docs::man_page(command, program, version));
    for (const auto& sub : command.commands) {
        ok = write_pages(sub, program, dir) && ok;
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        fmt::print(stderr, "usage: peergate-cli-docs DIR\n");
        return 2;
    }
    try {
        CLI::App app;
        peergate::cli::GlobalOptions options;
        peergate::cli::describe_app(app, options);
        const CommandReference program = peergate::cli::docs::reference_of(app);
        const std::string dir = argv[1];
        const bool pages = write_pages(program, program, dir);
        const bool completion =
            write(dir + "/peergate.bash", peergate::cli::docs::bash_completion(program));
        return pages && completion ? 0 : 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "peergate-cli-docs: {}\n", e.what());
        return 1;
    }
}
