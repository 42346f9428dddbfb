// Clang thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html): state
// a mutex guards says so in its declaration, and clang (the asan preset builds with it and
// -Wthread-safety as an error) checks every access holds it. Other compilers see nothing. Internal.
#pragma once

#if defined(__clang__)
#define ADBWIRE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define ADBWIRE_THREAD_ANNOTATION(x)
#endif

// A type whose objects are locks (base/mutex.hpp's Mutex).
#define ADBWIRE_CAPABILITY(name) ADBWIRE_THREAD_ANNOTATION(capability(name))
// An RAII type that holds a capability for its lifetime (MutexLock).
#define ADBWIRE_SCOPED_CAPABILITY ADBWIRE_THREAD_ANNOTATION(scoped_lockable)
// This member is read and written only with the mutex held.
#define ADBWIRE_GUARDED_BY(mutex) ADBWIRE_THREAD_ANNOTATION(guarded_by(mutex))
// What this pointer points to is accessed only with the mutex held.
#define ADBWIRE_PT_GUARDED_BY(mutex) ADBWIRE_THREAD_ANNOTATION(pt_guarded_by(mutex))
// The caller must hold the mutex (a helper called from locked code).
#define ADBWIRE_REQUIRES(...) ADBWIRE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// The caller must not hold the mutex (the function takes it).
#define ADBWIRE_EXCLUDES(...) ADBWIRE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ADBWIRE_ACQUIRE(...) ADBWIRE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ADBWIRE_RELEASE(...) ADBWIRE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define ADBWIRE_TRY_ACQUIRE(...) ADBWIRE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
// Opts one function out, with a comment saying why the access is safe there.
#define ADBWIRE_NO_THREAD_SAFETY_ANALYSIS ADBWIRE_THREAD_ANNOTATION(no_thread_safety_analysis)
