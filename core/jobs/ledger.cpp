#include "core/jobs/ledger.h"

#include "core/model/job_guard.h"
#include "core/profile/memory_recorder.h"
#include "core/run/compare.h"
#include "core/run/threads.h"

#include <QtCore/QElapsedTimer>

#include <algorithm>
#include <cmath>

namespace graft::core::jobs {

using namespace run;

QJsonObject LedgerEntry::toJson() const {
  QJsonObject o{{"ok", ok}, {"pass", pass}, {"max_abs", std::isfinite(maxAbs) ? QJsonValue(maxAbs) : QJsonValue()},
                {"median_ms", medianMs}, {"runs", runs}, {"peak_bytes", peakBytes}};
  if (!error.isEmpty()) o.insert(QStringLiteral("error"), error);
  return o;
}

namespace {
LedgerEntry check(const model::RevisionPtr& original, const model::RevisionPtr& revision, const InputSet& inputs,
                  const LedgerOptions& options) {
  LedgerEntry entry;
  ensureThreads();
  CompareOptions compare;
  compare.tol = {options.atol, options.rtol, options.elementwise};
  compare.cancel = options.cancel;
  const CompareResult r = compareRevisions(original, revision, inputs, compare);
  if (!r.ok) {
    entry.error = r.error;
    return entry;
  }
  entry.pass = r.equal;
  for (const auto& o : r.outputs) entry.maxAbs = std::max(entry.maxAbs, std::isnan(o.maxAbs) ? INFINITY : o.maxAbs);
  Executor executor(revision);
  RunOptions plain;
  std::vector<double> times;
  for (int i = 0; i <= options.runs; ++i) {
    if (options.cancel && options.cancel->load()) {
      entry.error = QStringLiteral("cancelled");
      return entry;
    }
    QElapsedTimer timer;
    timer.start();
    const RunResult run = executor.run(inputs, plain);
    const double ms = double(timer.nsecsElapsed()) / 1e6;
    if (!run.ok) {
      entry.error = run.error.headline();
      return entry;
    }
    if (i > 0) times.push_back(ms);  // the first run warms up
  }
  std::sort(times.begin(), times.end());
  entry.runs = int(times.size());
  entry.medianMs = times.empty() ? 0 : times[times.size() / 2];
  entry.peakBytes = profile::recordMemory(*revision, inputs.values, c10::Device(c10::kCPU)).peakBytes;
  entry.ok = true;
  return entry;
}
}  // namespace

LedgerEntry checkRevision(const model::RevisionPtr& original, const model::RevisionPtr& revision,
                          const InputSet& inputs, const LedgerOptions& options) {
  return model::guarded([&] { return check(original, revision, inputs, options); }, [](const QString& why) {
    LedgerEntry failed;
    failed.error = why;
    return failed;
  });
}

}  // namespace graft::core::jobs
