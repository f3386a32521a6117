#include "app/cli/commands.h"

namespace graft::cli {

std::vector<Command> allCommands() {
  return {infoCommand(), irCommand(), rulesCommand(), rewriteCommand()};
}

}  // namespace graft::cli
