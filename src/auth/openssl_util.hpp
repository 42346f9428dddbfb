// Owning handles for the OpenSSL objects the auth layer uses, and error-queue text.
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>
#include <string>

namespace adbwire::auth {

template <auto Free>
struct OpenSslDeleter {
  template <typename T>
  void operator()(T* p) const noexcept {
    Free(p);
  }
};

using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, OpenSslDeleter<EVP_PKEY_free>>;
using EvpPkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, OpenSslDeleter<EVP_PKEY_CTX_free>>;
using EvpMdCtxPtr = std::unique_ptr<EVP_MD_CTX, OpenSslDeleter<EVP_MD_CTX_free>>;
using BnPtr = std::unique_ptr<BIGNUM, OpenSslDeleter<BN_free>>;
using BnCtxPtr = std::unique_ptr<BN_CTX, OpenSslDeleter<BN_CTX_free>>;
using BioPtr = std::unique_ptr<BIO, OpenSslDeleter<BIO_free_all>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, OpenSslDeleter<OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, OpenSslDeleter<OSSL_PARAM_free>>;

// Drains this thread's OpenSSL error queue; returns the first reason (or "no detail"), so a
// failure reported now never leaks stale text into a later, unrelated message.
std::string take_openssl_error();

// Empties this thread's OpenSSL error queue after a failure that is reported another way.
void clear_openssl_errors() noexcept;

}  // namespace adbwire::auth
