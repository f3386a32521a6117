#pragma once
// reduce with the failing side on a host (ssh://HOST/DEVICE): the reference, the local errors
// that rank the culprit and the cutting run here; B's runs (the model node by node, then each
// candidate subgraph on its boundary values) run on the host, over one connection, each as
// B at its precision as the host runs it for compare (remote_compare.h revisionForHost): the
// model as its document saves it, a subgraph as a program of its own.
#include "core/model/document.h"
#include "core/remote/agent_connection.h"
#include "core/remote/remote_compare.h"
#include "core/run/reduce.h"

namespace graft::core::remote {

// Why reduce cannot run with B on a host in this version (remoteCompareRefusal's reasons; B must
// be a torch.export program, whose nodes the host runs one by one), or empty.
QString remoteReduceRefusal(const run::CompareOptions& options, const model::Document& document);

// `traffic` receives what the job cost. Never throws.
run::ReduceResult reduceOnHost(const model::Document& document, const model::RevisionPtr& revision,
                               const model::InputSet& inputs, const run::CompareOptions& options,
                               model::NodeIdSource& ids, const RemoteDevice& device, int threads,
                               const AgentConnection::Progress& progress, RemoteTraffic& traffic);

}  // namespace graft::core::remote
