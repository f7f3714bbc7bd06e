// SPDX-License-Identifier: Apache-2.0
#include "util/base64.hpp"

#include <gtest/gtest.h>

namespace peergate::util {
namespace {

TEST(Base64, Rfc4648TestVectors) {
    // RFC 4648 §10.
    const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                           {"f", "Zg=="},
                                                           {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},
                                                           {"foob", "Zm9vYg=="},
                                                           {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        EXPECT_EQ(base64_encode(plain), encoded);
        EXPECT_EQ(base64_decode(encoded), std::string(plain));
    }
}

TEST(Base64, EveryByteRoundTrips) {
    std::string bytes;
    for (int b = 0; b < 256; ++b) {
        bytes += static_cast<char>(b);
    }
    EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes);
}

TEST(Base64, MalformedTextIsRefused) {
    for (const char* bad : {"Zg=", "Zg==Zg==", "Z===", "Zm9*", "Zm=v", "=Zm9"}) {
        EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
    }
}

}  // namespace
}  // namespace peergate::util
