// One operation, two overloads: or_throw throws Error with the detail, or_code sets the code
// and leaves the same detail in last_error_detail(), without throwing.
#include "base/failure.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "adbwire/error_detail.hpp"

namespace adbwire::detail {
namespace {

int op(bool fail, Failure& failure) {
  if (fail) failure.set(errc::not_found, "pulling /sdcard/x: no such file");
  return fail ? 0 : 42;
}

TEST(Failure, OrThrowGivesTheResultOrErrorWithItsDetail) {
  EXPECT_EQ(or_throw([](Failure& f) { return op(false, f); }), 42);
  try {
    or_throw([](Failure& f) { return op(true, f); });
    ADD_FAILURE() << "nothing thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found);
    EXPECT_EQ(e.detail(), "pulling /sdcard/x: no such file");
    EXPECT_STREQ(e.what(), "pulling /sdcard/x: no such file: not found");
  }
}

TEST(Failure, OrCodeSetsTheCodeAndKeepsTheDetailPerThread) {
  std::error_code error;
  EXPECT_EQ(or_code(error, [](Failure& f) { return op(true, f); }), 0);
  EXPECT_EQ(error, errc::not_found);
  EXPECT_EQ(last_error_detail(), "pulling /sdcard/x: no such file");
  EXPECT_EQ(reported(error).detail, "pulling /sdcard/x: no such file");
  // Another thread has its own.
  std::string other = "unset";
  std::thread([&] { other = last_error_detail(); }).join();
  EXPECT_EQ(other, "");
  // A success clears it.
  EXPECT_EQ(or_code(error, [](Failure& f) { return op(false, f); }), 42);
  EXPECT_FALSE(error);
  EXPECT_EQ(last_error_detail(), "");
  EXPECT_FALSE(reported(error));
}

TEST(Failure, VoidOperationsToo) {
  std::error_code error;
  or_code(error, [](Failure& f) { f.set(errc::timeout, "waiting"); });
  EXPECT_EQ(error, errc::timeout);
  EXPECT_THROW(or_throw([](Failure& f) { f.set(errc::timeout, "waiting"); }), Error);
}

}  // namespace
}  // namespace adbwire::detail
