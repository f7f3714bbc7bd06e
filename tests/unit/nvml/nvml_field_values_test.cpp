// SPDX-License-Identifier: Apache-2.0
// A field value as a count (sources/nvml/nvml_field_values.cpp): only what NVML answered, as
// a whole non-negative number, whatever integer type it chose to carry it in.
#include "sources/nvml/nvml_field_values.hpp"

#include <gtest/gtest.h>

#include <cstddef>

namespace peergate::nvml {
namespace {

nvmlFieldValue_t answered(nvmlValueType_t type) {
    nvmlFieldValue_t value{};
    value.fieldId = NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS;
    value.scopeId = 3;
    value.valueType = type;
    value.nvmlReturn = NVML_SUCCESS;
    return value;
}

TEST(NvmlFieldValues, TheLayoutIsNvmlHeaders) {
    EXPECT_EQ(offsetof(nvmlFieldValue_t, scopeId), 4U);
    EXPECT_EQ(offsetof(nvmlFieldValue_t, timestamp), 8U);
    EXPECT_EQ(offsetof(nvmlFieldValue_t, valueType), 24U);
    EXPECT_EQ(offsetof(nvmlFieldValue_t, nvmlReturn), 28U);
    EXPECT_EQ(offsetof(nvmlFieldValue_t, value), 32U);
}

TEST(NvmlFieldValues, EachIntegerTypeIsACount) {
    auto v = answered(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    v.value.ullVal = 1ULL << 40;
    EXPECT_EQ(field_count(v), 1ULL << 40);
    v = answered(NVML_VALUE_TYPE_UNSIGNED_INT);
    v.value.uiVal = 7;
    EXPECT_EQ(field_count(v), 7U);
    v = answered(NVML_VALUE_TYPE_UNSIGNED_LONG);
    v.value.ulVal = 9;
    EXPECT_EQ(field_count(v), 9U);
    v = answered(NVML_VALUE_TYPE_UNSIGNED_SHORT);
    v.value.usVal = 65535;
    EXPECT_EQ(field_count(v), 65535U);
    v = answered(NVML_VALUE_TYPE_SIGNED_LONG_LONG);
    v.value.sllVal = 12;
    EXPECT_EQ(field_count(v), 12U);
    v = answered(NVML_VALUE_TYPE_SIGNED_INT);
    v.value.siVal = 0;
    EXPECT_EQ(field_count(v), 0U);
}

TEST(NvmlFieldValues, NegativeDoubleOrUnansweredIsUnknown) {
    auto v = answered(NVML_VALUE_TYPE_SIGNED_LONG_LONG);
    v.value.sllVal = -1;
    EXPECT_FALSE(field_count(v).has_value());
    v = answered(NVML_VALUE_TYPE_SIGNED_INT);
    v.value.siVal = -5;
    EXPECT_FALSE(field_count(v).has_value());
    v = answered(NVML_VALUE_TYPE_DOUBLE);
    v.value.dVal = 3.0;
    EXPECT_FALSE(field_count(v).has_value());
    v = answered(static_cast<nvmlValueType_t>(42));  // a type newer than this code
    EXPECT_FALSE(field_count(v).has_value());
    v = answered(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    v.value.ullVal = 5;
    v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;  // the value is undefined then
    EXPECT_FALSE(field_count(v).has_value());
}

}  // namespace
}  // namespace peergate::nvml
