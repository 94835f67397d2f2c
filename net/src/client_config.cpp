#include "config_check.hpp"

#include <retcon/net/client_config.hpp>

namespace retcon {

std::string client_config_problem(const client_config &c) {
    return internal::local_config_problem("client_config", c.input_size, c.prediction_window);
}

} // namespace retcon
