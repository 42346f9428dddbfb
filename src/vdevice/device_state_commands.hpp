// Shell commands that show the device state the state services change: `id` (root or shell
// user, toggled by root:/unroot:); and the one-reply service those services answer with.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdevice/service.hpp"
#include "vdevice/shell_job.hpp"

namespace adbwire::vdevice {

std::unique_ptr<Job> make_id(std::vector<std::string> argv);

// A service that writes `reply`, ends its stream and, with restart, drops the connection
// shortly after (adbd restarting), as root:, tcpip:, reverse:… answer.
std::shared_ptr<Service> make_reply_service(ServiceHost& host, std::uint32_t stream,
                                            std::string reply, bool restart);

}  // namespace adbwire::vdevice
