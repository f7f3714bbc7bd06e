// SPDX-License-Identifier: Apache-2.0
// DynamicLibrary against a library every Debian system has: libm.so.6.
#include "util/dynamic_library.hpp"

#include <gtest/gtest.h>

namespace peergate::util {
namespace {

TEST(DynamicLibrary, LoadsLibmAndResolvesCos) {
    auto lib = DynamicLibrary::open("libm.so.6");
    ASSERT_TRUE(lib.has_value()) << lib.error().message;
    EXPECT_EQ(lib->path(), "libm.so.6");
    auto* cosine = lib->function<double(double)>("cos");
    ASSERT_NE(cosine, nullptr);
    EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
}

TEST(DynamicLibrary, MissingSymbolIsNullptr) {
    auto lib = DynamicLibrary::open("libm.so.6");
    ASSERT_TRUE(lib.has_value()) << lib.error().message;
    EXPECT_EQ(lib->symbol("nvmlInit_v2"), nullptr);
    EXPECT_EQ(lib->function<int()>("peergate_no_such_symbol"), nullptr);
    EXPECT_NE(lib->symbol("sin"), nullptr) << "a failed lookup must not poison the next one";
}

TEST(DynamicLibrary, MissingLibraryErrorCarriesThePathAndDlerrorText) {
    const auto lib = DynamicLibrary::open("/nonexistent/libnvidia-ml.so.1");
    ASSERT_FALSE(lib.has_value());
    EXPECT_EQ(lib.error().code, ErrorCode::not_found);
    const std::string& why = lib.error().message;
    EXPECT_NE(why.find("cannot load /nonexistent/libnvidia-ml.so.1"), std::string::npos) << why;
    EXPECT_NE(why.find("No such file or directory"), std::string::npos)
        << "dlerror's text: " << why;
}

TEST(DynamicLibrary, NotALibraryIsAnErrorNotACrash) {
    const auto lib = DynamicLibrary::open(std::string(PEERGATE_TEST_FIXTURES) + "/README.md");
    ASSERT_FALSE(lib.has_value());
    EXPECT_NE(lib.error().message.find("README.md"), std::string::npos);
}

TEST(DynamicLibrary, OpenFirstTakesTheFirstThatLoads) {
    auto lib = DynamicLibrary::open_first({"/nonexistent/libnvidia-ml.so.1", "libm.so.6"});
    ASSERT_TRUE(lib.has_value()) << lib.error().message;
    EXPECT_EQ(lib->path(), "libm.so.6");
}

TEST(DynamicLibrary, OpenFirstListsWhyEachCandidateFailed) {
    const auto lib = DynamicLibrary::open_first({"/nonexistent/a.so", "/nonexistent/b.so"});
    ASSERT_FALSE(lib.has_value());
    const std::string& why = lib.error().message;
    EXPECT_NE(why.find("cannot load /nonexistent/a.so"), std::string::npos) << why;
    EXPECT_NE(why.find("; cannot load /nonexistent/b.so"), std::string::npos) << why;
    EXPECT_FALSE(DynamicLibrary::open_first({}).has_value());
}

TEST(DynamicLibrary, HandleMovesAndStaysUsable) {
    auto lib = DynamicLibrary::open("libm.so.6");
    ASSERT_TRUE(lib.has_value());
    DynamicLibrary moved = std::move(*lib);
    EXPECT_NE(moved.symbol("cos"), nullptr);
}

}  // namespace
}  // namespace peergate::util
