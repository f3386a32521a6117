#pragma once
// compare with side B on a remote device (ssh://HOST/DEVICE): A and the float64 reference run
// here, B runs on the host through Graft's agent, and B's outputs come back to be judged by the
// same rounding model as a local run (run/verdict.h), with B's device as the host's.
#include "core/model/document.h"
#include "core/remote/agent_connection.h"
#include "core/run/compare.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonObject>

namespace graft::core::remote {

// What a remote job cost: for progress lines, --json and docs/remote.md's figures.
struct RemoteTraffic {
  QString host;
  QString deviceLabel;  // "gpu-box:cuda:0, NVIDIA H100 80GB HBM3, torch 2.11.0+cu130"
  qint64 bytesSent = 0, bytesReceived = 0;
  int roundTrips = 0;
  bool modelChecked = false;  // the host was asked for the model (then modelSent says whether it was sent)
  bool modelSent = false;     // false: the host had this revision cached
  double seconds = 0;      // the remote part, connect to last reply
  QString summary() const;  // "sent 44.8 MB, received 4.1 KB, 4 round trips, 2.1 s"
  // Takes the device, bytes and round trips from `connection`, and the seconds `clock` (started
  // when the job connected) has run.
  void record(const AgentConnection& connection, const QElapsedTimer& clock);
  QJsonObject toJson() const;
};

struct RemoteCompareResult {
  run::CompareResult compare;  // error "B: HOST: cause" when the remote side failed
  RemoteTraffic traffic;
};

// Why `options` cannot run with a remote B in this version (--autocast, --casts as-written, --tf32
// emulate; --per-node unless B is a torch.export program, `programB`), or empty.
QString remoteCompareRefusal(const run::CompareOptions& options, bool programB);

// Intermediates (--per-node, or to find where differing outputs part) come from one node-by-node
// run of B's program on the host (torch.fx's Interpreter) whose values land on B's nodes by fx
// name; each node's own local error needs B's device here, so remote rows carry none.
// `options.deviceB` is the host's device (cpu, cuda:N) for the rounding model; `threads` > 0 sets
// the host's intra-op threads (0: its default). Never throws.
RemoteCompareResult compareWithRemoteB(const model::RevisionPtr& revA, const model::Document& docB,
                                       const model::RevisionPtr& revB, const model::InputSet& inputs,
                                       const run::CompareOptions& options, const RemoteDevice& device, int threads,
                                       const AgentConnection::Progress& progress);

// What the host runs for B: B itself, or B at --dtype-b as a program of its own (rewrite/
// program_dtype.h: as `model.half()` makes it), which stock PyTorch runs as it is. Null with
// `error` set when it cannot be made (a model that is not frozen).
model::RevisionPtr revisionForHost(const model::RevisionPtr& revB, const model::InputSet& inputs,
                                   const run::CompareOptions& options, QString* error);

struct RemoteModel;
// The same, with B's model saved beforehand (remote_model.h savedForRemote of revisionForHost's
// revision): for a caller whose document may close while the job runs (the window), so the job
// holds no Document.
RemoteCompareResult compareWithRemoteB(const model::RevisionPtr& revA, const RemoteModel& modelB,
                                       const model::RevisionPtr& revB, const model::InputSet& inputs,
                                       const run::CompareOptions& options, const RemoteDevice& device, int threads,
                                       const AgentConnection::Progress& progress);

// One run of `model` (sent unless the host has it) on the host for `inputs`: its flat outputs
// and, with `nodesOf` (B's revision, a program), a record per node of it as an instrumented local
// run keeps them. `typesOnly`: every tensor comes back as its dtype and shape alone (meta
// tensors), for shapes. Nullopt with `error` naming the host and the cause.
std::optional<run::RunResult> runRemote(AgentConnection& connection, const RemoteModel& model,
                                        const model::InputSet& inputs, const model::Revision* nodesOf,
                                        RemoteTraffic& traffic, QString* error, bool typesOnly = false);

}  // namespace graft::core::remote
