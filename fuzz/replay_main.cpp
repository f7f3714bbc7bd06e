// SPDX-License-Identifier: Apache-2.0
// Replays every file under the given directories through LLVMFuzzerTestOneInput, plus a
// few hostile synthetic inputs, so fuzz targets run in ctest without libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void feed(const std::string& bytes) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

// Each input, then each input cut at several points and with bytes flipped, as a
// cheap stand-in for mutation when libFuzzer is not there.
void feed_with_mutations(const std::string& bytes, std::mt19937& rng) {
    feed(bytes);
    for (std::size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - bytes.size() / 5}) {
        feed(bytes.substr(0, cut));
    }
    for (int round = 0; round < 16 && !bytes.empty(); ++round) {
        std::string mutated = bytes;
        std::uniform_int_distribution<std::size_t> pos(0, mutated.size() - 1);
        std::uniform_int_distribution<int> byte(0, 255);
        for (int k = 0; k < 4; ++k) {
            mutated[pos(rng)] = static_cast<char>(byte(rng));
        }
        feed(mutated);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::mt19937 rng(12345);
    std::size_t count = 0;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        if (!std::filesystem::exists(argv[i], ec)) {
            continue;
        }
        for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i], ec)) {
            if (!entry.is_regular_file() || entry.file_size() > (4U << 20U)) {
                continue;
            }
            std::ifstream in(entry.path(), std::ios::binary);
            feed_with_mutations(std::string(std::istreambuf_iterator<char>(in), {}), rng);
            ++count;
        }
    }
    feed("");
    feed(std::string(1U << 20U, 'G'));
    feed(std::string(4096, '\0'));
    std::printf("replayed %zu files\n", count);
    return 0;
}
