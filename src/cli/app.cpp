// SPDX-License-Identifier: Apache-2.0
#include "cli/app.hpp"

#include "cli/commands.hpp"
#include "peergate/version.hpp"
#include "pipeline/seams.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

namespace peergate::cli {

namespace {

void add_global_options(CLI::App& app, GlobalOptions& options) {
    app.add_option("--nvml-lib", options.nvml_lib, "NVML library to load (env PEERGATE_NVML_LIB)");
    app.add_option(
        "--cuda-lib", options.cuda_lib, "CUDA driver library to load (env PEERGATE_CUDA_LIB)");
    app.add_option(
        "--nvidia-smi", options.nvidia_smi, "nvidia-smi binary to run (env PEERGATE_NVIDIA_SMI)");
    app.add_option(
        "--host-root", options.host_root, "read /sys and /proc under DIR (env PEERGATE_HOST_ROOT)");
    app.add_option(
        "--simulate",
        options.simulate,
        "run on a simulated machine: a built-in NAME or a machine FILE (env PEERGATE_SIMULATE)");
    app.add_flag("-j,--json", options.json, "machine-readable output on stdout");
    app.add_flag("--no-color", options.no_color, "no ANSI colour (also honoured: NO_COLOR)");
    app.add_flag("-q,--quiet", options.quiet, "print only results and errors");
    app.add_flag("-v,--verbose", options.verbose, "say what each source answered");
}

Output make_output(const GlobalOptions& options, const util::EnvMap& env) {
    Output output;
    output.json = options.json;
    output.quiet = options.quiet;
    output.verbose = options.verbose;
    // NO_COLOR: any non-empty value disables colour (no-color.org).
    const bool no_color_env = !env.get("NO_COLOR").value_or("").empty();
    output.color =
        !options.no_color && !no_color_env && !options.json && ::isatty(STDOUT_FILENO) == 1;
    output.progress = !options.quiet && !options.json && ::isatty(STDERR_FILENO) == 1;
    return output;
}

int run_parsed(Invocation& inv, const std::vector<Command>& commands) {
    inv.output = make_output(inv.options, inv.env);
    const pipeline::SeamChoices chosen{.nvml_lib = inv.options.nvml_lib,
                                       .cuda_lib = inv.options.cuda_lib,
                                       .nvidia_smi = inv.options.nvidia_smi,
                                       .host_root = inv.options.host_root,
                                       .simulate = inv.options.simulate};
    if (auto resolved = pipeline::resolve_seams(inv, chosen); !resolved) {
        print_error(inv.output, resolved.error().message);
        return kExitError;
    }
    // The simulated NVML and CUDA driver dlopen'd into this process are told their machine
    // from inv.seams when they are opened, not through this process's environment: the
    // library and C APIs cannot set their caller's, and run the same code (docs/python.md).
    for (const auto& command : commands) {
        if (command.app->parsed()) {
            return command.run(inv);
        }
    }
    return kExitError;
}

}  // namespace

std::vector<Command> describe_app(CLI::App& app, GlobalOptions& options) {
    app.description(
        "peergate: may GPU peer-to-peer traffic flow here, is it intact, how fast, "
        "and where should the work go");
    app.footer(
        "Each command's --help (and its man page, peergate-COMMAND) says what it prints and its "
        "exit status.\nNo GPU here? peergate --simulate pcie-rtx6000ada-2x-iommu doctor runs "
        "on a simulated machine.");
    app.set_version_flag("--version", std::string("peergate ") + kVersion);
    app.require_subcommand(1);
    app.fallthrough();  // global options are accepted after the command name too
    add_global_options(app, options);
    return add_all_commands(app);
}

int run_main(int argc, char** argv, char** envp) {
    CLI::App app;
    Invocation inv;
    inv.env = util::EnvMap::from_envp(envp);
    const auto commands = describe_app(app, inv.options);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int status = app.exit(e);
        return status == 0 ? kExitOk : kExitError;
    }
    try {
        return run_parsed(inv, commands);
    } catch (const std::exception& e) {
        // Last resort: our code returns errors as values; this is a third-party throw.
        fmt::print(stderr, "peergate: internal error: {}\n", e.what());
        return kExitError;
    }
}

}  // namespace peergate::cli
