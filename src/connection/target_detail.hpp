// The explanation for a target that Target::parse rejected. Internal.
#pragma once

#include <string>
#include <string_view>

namespace adbwire::detail {

// Why `text` (or $ANDROID_SERIAL when text is empty) is not a target, with the accepted forms.
std::string target_error_detail(std::string_view text);

}  // namespace adbwire::detail
