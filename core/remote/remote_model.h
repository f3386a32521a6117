#pragma once
// What goes up for a remote run: the revision as Graft saves it (a .pt2 for a program, a
// TorchScript archive otherwise), named by its SHA-256 so a host keeps each revision once
// (~/.cache/graft/models/ of the remote user) and a second job on it sends nothing.
#include "core/model/document.h"
#include "core/model/revision.h"
#include "core/remote/agent_connection.h"

#include <QtCore/QByteArray>
#include <QtCore/QString>
#include <optional>
#include <vector>

namespace c10 { struct IValue; }

namespace graft::core::remote {

struct RemoteModel {
  QByteArray bytes;
  QString sha256;  // hex
  QString format;  // "pt2" or "torchscript": how the agent loads it
  model::RevisionPtr revision;  // what the bytes hold: the host's values land on its nodes
};

// Saves `revision` of `document` to a temporary file and reads it back; nullopt with `error`
// (the save error) when it cannot be saved. The last two saved (up to 512 MiB each) are kept, so
// a second job on the same revision neither saves nor hashes it again.
std::optional<RemoteModel> savedForRemote(const model::Document& document, const model::RevisionPtr& revision,
                                          QString* error);

// A revision that is a program of its own (a subgraph reduce cut out: io::savePt2Program, its
// inputs the graph's), saved as a .pt2 with `sampleInputs`.
std::optional<RemoteModel> savedProgramForRemote(const model::RevisionPtr& revision,
                                                 const std::vector<c10::IValue>& sampleInputs, QString* error);

// Makes sure the host holds the model: none when this connection's agent already has it, one
// round trip when it is cached on the host's disk, two otherwise.
bool sendModel(AgentConnection& connection, const RemoteModel& model, QString* error);

}  // namespace graft::core::remote
