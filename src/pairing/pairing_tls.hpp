// The TLS both pairing peers run (AOSP tls_connection.cpp as pairing_connection.cpp sets it
// up): TLS 1.3 only, each side presenting a self-signed certificate of its key, any peer
// certificate accepted (SPAKE2 over the exported keying material is what authenticates), and
// the server demanding a client certificate. Internal to the pairing layer.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string>

#include "base/failure.hpp"
#include "pairing/tls_channel.hpp"

namespace adbwire::pairing {

enum class TlsSide { client, server };

// A channel on fd (a connected TCP socket, owned from here on, closed on failure too).
// nullptr with failure set (io_error) when OpenSSL cannot set TLS up.
std::unique_ptr<TlsChannel> open_channel(int fd, std::string peer, TlsSide side, EVP_PKEY* key,
                                         detail::Failure& failure);

}  // namespace adbwire::pairing
