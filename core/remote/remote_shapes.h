#pragma once
// shapes on a remote device (ssh://HOST/DEVICE): the host's agent runs a torch.export program
// node by node (torch.fx's Interpreter) and sends back each node's dtypes and sizes alone, not
// its values, so the report (core/report/shapes_report) is the one a local run gives, in the same
// JSON keys, for a run on the host's device.
#include "core/model/document.h"
#include "core/remote/remote_compare.h"

#include <QtCore/QJsonObject>

namespace graft::core::remote {

struct RemoteShapesResult {
  QJsonObject report;  // empty on failure
  QString error;       // "HOST: cause", or why the model cannot be run there node by node
  RemoteTraffic traffic;
};

// `threads` > 0 sets the host's intra-op threads. Never throws.
RemoteShapesResult shapesRemote(const model::Document& document, const model::RevisionPtr& revision,
                                const model::InputSet& inputs, const RemoteDevice& device, int threads,
                                const AgentConnection::Progress& progress, const std::atomic<bool>* cancel = nullptr);

}  // namespace graft::core::remote
