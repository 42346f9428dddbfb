// Whether this test binary runs under AddressSanitizer (the asan preset) or ThreadSanitizer (the
// tsan preset, scripts/tsan), for the memory bounds that only the default build can hold: ASan's
// quarantine keeps up to 256 MiB of freed memory resident by design, and its shadow and red zones
// add to every allocation; TSan maps shadow and history memory for every page a thread touches.
#pragma once

namespace adbwire::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

}  // namespace adbwire::test
