#include "app/cli/commands.h"

namespace graft::cli {

std::vector<Command> allCommands() {
  return {infoCommand(),    irCommand(),     layoutCommand(),    rulesCommand(),      rewriteCommand(),
          compareCommand(), reduceCommand(), precisionCommand(), quantErrorCommand(), profileCommand(),
          replayCommand(),  shapesCommand(), diffCommand(),      reportCommand()};
}

}  // namespace graft::cli
