// SPDX-License-Identifier: Apache-2.0
// The process topology cache: publish on success, generations, refresh, prime. These run
// under ThreadSanitizer (ctest label threads, preset tsan).
#include "sources/discovery/topology_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace peergate {
namespace {

using namespace std::chrono_literals;

model::Discovery answer(const std::string& provenance) {
    model::Topology topology;
    topology.gpus = {model::Gpu{.index = 0}, model::Gpu{.index = 1}};
    topology.matrix = {{model::LinkLabel::self(), model::LinkLabel::nvlink(18)},
                       {model::LinkLabel::nvlink(18), model::LinkLabel::self()}};
    topology.source = model::TopologySource::nvml;
    topology.provenance = provenance;
    model::Discovery discovery;
    discovery.topology = topology;
    return discovery;
}

model::Discovery failure(const std::string& reason) {
    model::Discovery discovery;
    discovery.reason = reason;
    return discovery;
}

// A gate the test opens; passes wait on it.
class Gate {
public:
    void open() {
        const std::lock_guard lock(mutex_);
        open_ = true;
        cv_.notify_all();
    }

    void wait() {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return open_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool open_ = false;
};

bool wait_idle(const TopologyCache& cache) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!cache.idle()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

TEST(TopologyCache, PublishesTheFirstSuccessAndServesItAfterwards) {
    std::atomic<int> calls{0};
    TopologyCache cache([&](const TopologyConfig&, const sources::DiscoveryRequest&) {
        ++calls;
        return answer("first");
    });
    EXPECT_EQ(cache.get({}).topology->provenance, "first");
    EXPECT_EQ(cache.get({}).topology->provenance, "first");
    EXPECT_EQ(calls.load(), 1);
}

TEST(TopologyCache, AFailureIsNotPublished) {
    std::atomic<int> calls{0};
    TopologyCache cache([&](const TopologyConfig&, const sources::DiscoveryRequest&) {
        return ++calls == 1 ? failure("down") : answer("second");
    });
    EXPECT_FALSE(cache.get({}).topology);
    EXPECT_FALSE(cache.published());
    EXPECT_EQ(cache.get({}).topology->provenance, "second");
    EXPECT_EQ(calls.load(), 2);
}

TEST(TopologyCache, AFailedRefreshNeverErasesAGoodMatrix) {
    std::atomic<int> calls{0};
    TopologyCache cache([&](const TopologyConfig&, const sources::DiscoveryRequest&) {
        return ++calls == 1 ? answer("good") : failure("NVML did not answer within 10 s");
    });
    ASSERT_TRUE(cache.get({}).topology);
    const auto refreshed = cache.refresh({});
    EXPECT_FALSE(refreshed.topology) << "refresh reports its own pass";
    ASSERT_TRUE(cache.published());
    EXPECT_EQ(cache.get({}).topology->provenance, "good");
}

TEST(TopologyCache, ARefreshDiscardsAPassThatStartedBeforeIt) {
    Gate release_old;
    std::atomic<int> calls{0};
    std::atomic<bool> old_started{false};
    TopologyCache cache([&](const TopologyConfig&, const sources::DiscoveryRequest&) {
        if (++calls == 1) {
            old_started = true;
            release_old.wait();
            return answer("old");
        }
        return answer("new");
    });
    std::thread old_pass([&] { EXPECT_EQ(cache.get({}).topology->provenance, "old"); });
    while (!old_started) {
        std::this_thread::sleep_for(1ms);
    }
    EXPECT_EQ(cache.refresh({}).topology->provenance, "new");
    release_old.open();
    old_pass.join();
    EXPECT_EQ(cache.published()->topology->provenance, "new") << "the older pass must not win";
    EXPECT_EQ(cache.get({}).topology->provenance, "new");
}

TEST(TopologyCache, ConcurrentReadersAllGetTheMatrix) {
    TopologyCache cache(
        [](const TopologyConfig&, const sources::DiscoveryRequest&) { return answer("shared"); });
    std::vector<std::thread> readers;
    std::atomic<int> good{0};
    for (int t = 0; t < 8; ++t) {
        readers.emplace_back([&] {
            for (int k = 0; k < 20; ++k) {
                good += cache.get({}).topology.has_value() ? 1 : 0;
            }
        });
    }
    for (auto& reader : readers) {
        reader.join();
    }
    EXPECT_EQ(good.load(), 160);
}

TEST(TopologyCache, PrimeNeverBlocksAndAsksForNvmlOnly) {
    Gate release;
    std::atomic<bool> nvml_only{false};
    TopologyCache cache([&](const TopologyConfig&, const sources::DiscoveryRequest& request) {
        nvml_only = request.tier == sources::TierChoice::nvml && !request.crosscheck;
        release.wait();
        return answer("primed");
    });
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(cache.prime({}), PrimeOutcome::started);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
    EXPECT_FALSE(cache.published());
    release.open();
    ASSERT_TRUE(wait_idle(cache));
    ASSERT_TRUE(cache.published());
    EXPECT_EQ(cache.published()->topology->provenance, "primed");
    EXPECT_TRUE(nvml_only.load());
    EXPECT_EQ(cache.prime({}), PrimeOutcome::already_published);
}

TEST(TopologyCache, PrimePublishesOnlySuccess) {
    TopologyCache cache(
        [](const TopologyConfig&, const sources::DiscoveryRequest&) { return failure("no NVML"); });
    EXPECT_EQ(cache.prime({}), PrimeOutcome::started);
    ASSERT_TRUE(wait_idle(cache));
    EXPECT_FALSE(cache.published());
}

TEST(TopologyCache, PrimeIsSkippedUnderOptOutsAndTheCrosscheck) {
    // Passes fail, so nothing is published and every unflagged prime starts one.
    std::atomic<int> calls{0};
    TopologyCache cache([&](const TopologyConfig&, const sources::DiscoveryRequest&) {
        ++calls;
        return failure("x");
    });
    const std::pair<const char*, PrimeOutcome> cases[] = {
        {"PEERGATE_DISABLE_TUNING", PrimeOutcome::skipped_opt_out},
        {"PEERGATE_DISABLE_P2P", PrimeOutcome::skipped_opt_out},
        {"UNSLOTH_DISABLE_DC_TUNING", PrimeOutcome::skipped_opt_out},
        {"UNSLOTH_DISABLE_DC_P2P", PrimeOutcome::skipped_opt_out},
        {"PEERGATE_TOPO_CROSSCHECK", PrimeOutcome::skipped_crosscheck},
        {"UNSLOTH_P2P_TOPO_CROSSCHECK", PrimeOutcome::skipped_crosscheck},
    };
    for (const auto& [name, expected] : cases) {
        SCOPED_TRACE(name);
        TopologyConfig config;
        config.env.set(name, "1");
        EXPECT_EQ(cache.prime(config), expected);
        EXPECT_EQ(calls.load(), 0) << "a skipped warm-up runs no pass";
        config.env.set(name, "true");  // only the exact string 1 counts
        EXPECT_EQ(cache.prime(config), PrimeOutcome::started);
        ASSERT_TRUE(wait_idle(cache));
        EXPECT_EQ(calls.load(), 1);
        calls = 0;
    }
    TopologyConfig flagged;
    flagged.request.crosscheck = true;
    TopologyCache fresh(
        [&](const TopologyConfig&, const sources::DiscoveryRequest&) { return answer("y"); });
    EXPECT_EQ(fresh.prime(flagged), PrimeOutcome::skipped_crosscheck);
}

}  // namespace
}  // namespace peergate
