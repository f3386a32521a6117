#include "core/profile/profiler.h"
#include "core/run/threads.h"

#include "core/model/graph_view.h"
#include "core/model/revision.h"
#include "core/run/device_forward.h"
#include "core/run/input_set.h"

#include <ATen/record_function.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace graft::core::profile {

namespace {

using Clock = std::chrono::steady_clock;

// What the callbacks write into; one per profiling call, reached through a global pointer
// because RecordFunction callbacks are plain function pointers.
struct Recorder {
  Clock::time_point origin;
  int run = 0;
  bool recording = false;
  // On CUDA kernels run asynchronously: each top-level op waits for its kernels before it is
  // timed, so an op's time is its device time rather than its launch time.
  bool syncOps = false;
  std::mutex mutex;
  QVector<OpEvent> events;
  std::unordered_map<std::thread::id, quint64> lanes;
};
std::atomic<Recorder*> gRecorder{nullptr};
thread_local int tlsDepth = 0;

struct Span : at::ObserverContext {
  Clock::time_point start;
  int depth = 0;
  QString shapes;
};

QString shapesOf(const at::RecordFunction& fn) {
  QStringList parts;
  for (const auto& v : fn.inputs()) {
    if (!v.isTensor()) continue;
    const auto& t = v.toTensor();
    if (!t.defined()) continue;
    QStringList dims;
    for (auto d : t.sizes()) dims << QString::number(d);
    parts << QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  return parts.join(QStringLiteral(", "));
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
  Recorder* rec = gRecorder.load();
  if (!rec || !rec->recording) return nullptr;
  auto span = std::make_unique<Span>();
  span->depth = tlsDepth++;
  if (span->depth == 0) span->shapes = shapesOf(fn);
  span->start = Clock::now();
  return span;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext* ctx) {
  auto* span = static_cast<Span*>(ctx);
  Recorder* rec = gRecorder.load();
  if (span && rec && rec->syncOps && span->depth == 0) torch::cuda::synchronize();
  const auto end = Clock::now();
  if (!span || !rec) return;
  tlsDepth = span->depth;
  OpEvent e;
  e.name = QString::fromLatin1(fn.name());
  e.run = rec->run;
  e.startNs = std::chrono::duration_cast<std::chrono::nanoseconds>(span->start - rec->origin).count();
  e.durationNs = std::chrono::duration_cast<std::chrono::nanoseconds>(end - span->start).count();
  e.depth = span->depth;
  e.shapes = span->shapes;
  std::lock_guard lock(rec->mutex);
  auto lane = rec->lanes.try_emplace(std::this_thread::get_id(), rec->lanes.size()).first->second;
  e.thread = lane;
  rec->events.push_back(std::move(e));
}

// The device the inputs live on (the first tensor's, nested tuples and lists included).
c10::Device deviceOf(const std::vector<c10::IValue>& inputs) {
  for (const auto& v : inputs) {
    if (v.isTensor()) return v.toTensor().device();
    if (v.isTuple())
      if (auto d = deviceOf(v.toTupleRef().elements().vec()); !d.is_cpu()) return d;
    if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorList()) return t.device();
  }
  return c10::Device(c10::kCPU);
}

double timedForward(run::DeviceForward& forward, const std::vector<c10::IValue>& inputs) {
  const auto start = Clock::now();
  forward(inputs);
  if (!forward.device().is_cpu()) torch::cuda::synchronize();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Assigns each depth-0 event of one run to the next graph node of the same kind, in graph order.
// Ops the interpreter runs without the dispatcher (aten::size, prim ops) have no event.
int matchRun(QVector<OpEvent>& events, int begin, int end, const model::GraphView& view) {
  int unmatched = 0;
  int cursor = 0;
  for (int i = begin; i < end; ++i) {
    auto& e = events[i];
    if (e.depth != 0) continue;
    int k = cursor;
    while (k < view.nodes.size() && view.nodes[k].kind != e.name) ++k;
    if (k == view.nodes.size()) {
      ++unmatched;
      continue;
    }
    e.node = view.nodes[k].id;
    cursor = k + 1;
  }
  return unmatched;
}

}  // namespace

Profile profileRevision(const model::Revision& revision, const std::vector<c10::IValue>& givenInputs,
                        const ProfileOptions& options) {
  const std::vector<c10::IValue> inputs = run::withDefaults(revision, givenInputs);
  if (options.runs < 1) throw std::runtime_error("--runs must be at least 1");
  run::ensureThreads();
  torch::NoGradGuard noGrad;
  // Time the graph as written: the executor's optimiser would rewrite it (and time itself) on
  // the first calls. Restored afterwards: freeze_module fails on some models while it is off.
  struct OptimizerOff {
    bool previous = torch::jit::getGraphExecutorOptimize();
    OptimizerOff() { torch::jit::setGraphExecutorOptimize(false); }
    ~OptimizerOff() { torch::jit::setGraphExecutorOptimize(previous); }
  } optimizerOff;
  const c10::Device device = deviceOf(inputs);
  run::DeviceForward forward(revision, device);
  const auto view = model::GraphView::build(revision);
  Profile profile;
  profile.warmup = options.warmup;
  profile.threads = run::currentThreads();
  profile.device = QString::fromStdString(device.str());

  Recorder recorder;
  recorder.syncOps = !device.is_cpu();
  recorder.origin = Clock::now();
  Recorder* expected = nullptr;
  if (!gRecorder.compare_exchange_strong(expected, &recorder))
    throw std::runtime_error("another profile is running in this process");
  auto handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&onStart, &onEnd).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
  struct Cleanup {
    at::CallbackHandle handle;
    ~Cleanup() {
      at::removeCallback(handle);
      gRecorder.store(nullptr);
      tlsDepth = 0;
    }
  } cleanup{handle};

  const int total = options.warmup + options.runs;
  try {
    for (int i = 0; i < total; ++i) {
      const bool measured = i >= options.warmup;
      // The baseline: the module's own forward with no callbacks recording, right before.
      const double plain = timedForward(forward, inputs);
      recorder.run = i - options.warmup;
      const int before = recorder.events.size();
      recorder.recording = measured;
      const double profiled = timedForward(forward, inputs);
      recorder.recording = false;
      if (measured) {
        profile.forwardMs.push_back(plain);
        profile.runMs.push_back(profiled);
        profile.unmatchedEvents += matchRun(recorder.events, before, recorder.events.size(), view);
      }
      if (options.progress && !options.progress(i + 1, total)) {
        profile.cancelled = true;
        break;
      }
    }
  } catch (const c10::Error& e) {
    throw std::runtime_error(e.what_without_backtrace());
  }
  profile.events = std::move(recorder.events);
  profile.run = Stats::of(profile.runMs);
  profile.forward = Stats::of(profile.forwardMs);

  // Per node: the sum of its events in each run, then statistics over runs.
  const int runs = profile.runMs.size();
  std::unordered_map<model::NodeId, QVector<double>> perRun;
  std::unordered_map<model::NodeId, int> calls;
  for (const auto& e : profile.events) {
    if (e.depth != 0 || e.node == model::kNoNode) continue;
    auto& v = perRun[e.node];
    if (v.isEmpty()) v.fill(0.0, runs);
    v[e.run] += e.durationNs / 1e6;
    if (e.run == 0) ++calls[e.node];
  }
  QHash<QString, QVector<double>> kindPerRun;
  QHash<QString, int> kindNodes;
  for (const auto& n : view.nodes) {
    auto it = perRun.find(n.id);
    if (it == perRun.end()) continue;
    profile.nodes.push_back({n.id, n.kind, n.modulePath, calls[n.id], Stats::of(it->second)});
    auto& k = kindPerRun[n.kind];
    if (k.isEmpty()) k.fill(0.0, runs);
    for (int r = 0; r < runs; ++r) k[r] += it->second[r];
    ++kindNodes[n.kind];
  }
  for (auto it = kindPerRun.begin(); it != kindPerRun.end(); ++it)
    profile.byOp.push_back({it.key(), kindNodes.value(it.key()), Stats::of(it.value())});
  std::sort(profile.byOp.begin(), profile.byOp.end(), [](const auto& a, const auto& b) {
    return a.totalMs.median != b.totalMs.median ? a.totalMs.median > b.totalMs.median : a.op < b.op;
  });
  return profile;
}

}  // namespace graft::core::profile
