#include "app/cli/commands.h"

namespace graft::cli {

std::vector<Command> allCommands() {
  return {infoCommand(), irCommand(), compareCommand()};
}

}  // namespace graft::cli
