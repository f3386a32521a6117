#pragma once
// The graft-cli subcommands; each lives in its own cmd_<name>.cpp.
#include "app/cli/cli_common.h"

#include <vector>

namespace graft::cli {

Command infoCommand();
Command irCommand();
Command profileCommand();
Command layoutCommand();
Command replayCommand();
Command shapesCommand();
Command diffCommand();
Command reportCommand();
Command rulesCommand();
Command rewriteCommand();
Command compareCommand();
Command reduceCommand();
Command precisionCommand();
Command quantErrorCommand();

// Every subcommand, in the order `graft-cli --help` lists them.
std::vector<Command> allCommands();

}  // namespace graft::cli
