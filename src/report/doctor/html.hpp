// SPDX-License-Identifier: Apache-2.0
// `doctor --html FILE`: the same report as one self-contained HTML page (no scripts, no
// external resources), for attaching to a ticket or serving from a node's status page.
#pragma once

#include "policy/assess/assessment.hpp"
#include "policy/doctor/doctor.hpp"

#include <string>
#include <string_view>

namespace peergate::report::doctor {

std::string doctor_to_html(const policy::doctor::DoctorInput& input,
                           const policy::doctor::DoctorReport& report,
                           const policy::assess::Assessment& assessment);

// Text made safe inside HTML elements and attribute values (& < > " ').
std::string html_escape(std::string_view text);

// The pages' one stylesheet (doctor's and fleet's): the width used, light or dark as the
// reader's system is, A4 print, the drawing's and the grids' colours.
std::string_view html_page_style();

}  // namespace peergate::report::doctor
