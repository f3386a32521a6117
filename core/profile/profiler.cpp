#include "core/profile/profiler.h"
#include "core/profile/kernel_attribution.h"
#include "core/profile/memory_recorder.h"
#include "core/run/threads.h"

#include "core/model/graph_view.h"
#include "core/model/graph_walk.h"
#include "core/model/revision.h"
#include "core/run/device_forward.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <QtCore/QSet>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace graft::core::profile {

namespace {

using Clock = std::chrono::steady_clock;

// One callback event as recorded on the hot path: fixed size, no heap memory. The name is copied
// (not pointed to) because a RecordFunction's name need not outlive it.
struct RawEvent {
  char name[64];
  qint64 startNs;
  qint64 durationNs;
  int depth;
  int run;
};

// A thread's preallocated event buffer. Buffers are made before the timed runs for the calling
// thread; another thread that records (an intra-op worker) gets one on its first event.
struct ThreadBuffer {
  std::vector<RawEvent> events;  // reserved up front: push_back does not allocate while it fits
  quint64 lane = 0;
  qint64 starts[64];             // start time per open depth
  int depth = 0;
};

// What the callbacks write into; one per profiling call, reached through a global pointer
// because RecordFunction callbacks are plain function pointers.
struct Recorder {
  Clock::time_point origin;
  int run = 0;
  std::atomic<bool> recording{false};
  bool shapesRun = false;  // the separate, untimed run that records input shapes
  // On CUDA kernels run asynchronously. Their device times come from the profiler's GPU activity
  // (DeviceActivity); only where that cannot be had does each top-level op wait for its kernels
  // before it is timed, so that its time is its device time rather than its launch time.
  bool syncOps = false;
  size_t capacity = 0;
  int generation = 0;
  std::mutex mutex;  // guards `buffers` (taken once per thread, never per event)
  std::vector<std::unique_ptr<ThreadBuffer>> buffers;
  QStringList shapes;  // depth-0 input shapes of the shapes run, in order
};
std::atomic<Recorder*> gRecorder{nullptr};
std::atomic<int> gGeneration{0};
thread_local ThreadBuffer* tlsBuffer = nullptr;
thread_local int tlsGeneration = -1;

qint64 sinceOrigin(const Recorder* rec) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - rec->origin).count();
}

ThreadBuffer* bufferOf(Recorder* rec) {
  if (tlsBuffer && tlsGeneration == rec->generation) return tlsBuffer;
  std::lock_guard lock(rec->mutex);
  auto buffer = std::make_unique<ThreadBuffer>();
  buffer->events.reserve(rec->capacity);
  buffer->lane = rec->buffers.size();
  tlsBuffer = buffer.get();
  tlsGeneration = rec->generation;
  rec->buffers.push_back(std::move(buffer));
  return tlsBuffer;
}

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

// Returns no context (nothing to allocate): start times live in the thread's buffer by depth.
std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
  Recorder* rec = gRecorder.load(std::memory_order_acquire);
  if (!rec || !rec->recording.load(std::memory_order_relaxed)) return nullptr;
  ThreadBuffer* buf = bufferOf(rec);
  if (rec->shapesRun) {
    if (buf->depth == 0) rec->shapes << shapesOf(fn);
    ++buf->depth;
    return nullptr;
  }
  if (buf->depth < 64) buf->starts[buf->depth] = sinceOrigin(rec);
  ++buf->depth;
  return nullptr;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext*) {
  Recorder* rec = gRecorder.load(std::memory_order_acquire);
  if (!rec || !rec->recording.load(std::memory_order_relaxed)) return;
  ThreadBuffer* buf = bufferOf(rec);
  if (buf->depth == 0) return;  // began before recording was switched on
  const int depth = --buf->depth;
  if (rec->shapesRun || depth >= 64) return;
  if (rec->syncOps && depth == 0) torch::cuda::synchronize();
  const qint64 end = sinceOrigin(rec);
  RawEvent e;
  std::strncpy(e.name, fn.name(), sizeof e.name - 1);
  e.name[sizeof e.name - 1] = '\0';
  e.startNs = buf->starts[depth];
  e.durationNs = end - e.startNs;
  e.depth = depth;
  e.run = rec->run;
  buf->events.push_back(e);
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

// The profiler's GPU activity (Kineto/CUPTI, which libtorch carries) over one run: kernels,
// copies and sets on the device with their correlation ids, and the CUDA runtime calls that
// launched them, on the host. CPU ops are not collected by it (Graft's own callbacks time them),
// so the run pays CUPTI's per-kernel cost only, and no op waits for its kernels.
class DeviceActivity {
 public:
  // Starts collecting; throws c10::Error where the profiler cannot (no CUPTI, another profiler on).
  void start() {
    namespace impl = torch::profiler::impl;
    const impl::ProfilerConfig config(impl::ProfilerState::KINETO);
    const std::set<impl::ActivityType> activities{impl::ActivityType::CUDA};
    torch::autograd::profiler::prepareProfiler(config, activities);
    torch::autograd::profiler::enableProfiler(config, activities);
    // The profiler's clock is the system clock (ns since the epoch); the profile's is
    // steady_clock since its origin. Their difference, taken between two reads of the first.
    offsetNs_ = offsetToSystem();
    active_ = true;
  }
  // Stops collecting and appends the run's records, converted to the profile's clock.
  void stop(QVector<ActivityRecord>& out) {
    if (!active_) return;
    active_ = false;
    const qint64 offset = (offsetNs_ + offsetToSystem()) / 2;
    const auto result = torch::autograd::profiler::disableProfiler();
    if (!result) return;
    for (const auto& e : result->events()) {
      const bool onDevice = e.deviceType() == c10::DeviceType::CUDA;
      if (!onDevice && e.correlationId() == 0) continue;  // host records that launched nothing
      ActivityRecord r;
      r.name = QString::fromStdString(e.name());
      r.onDevice = onDevice;
      r.correlation = e.correlationId();
      r.startNs = qint64(e.startNs()) - offset;
      r.endNs = qint64(e.endNs()) - offset;
      r.stream = onDevice ? e.deviceResourceId() : 0;
      out.push_back(std::move(r));
    }
  }
  ~DeviceActivity() {
    if (active_) {
      try {
        torch::autograd::profiler::disableProfiler();
      } catch (...) {
      }
    }
  }
  void setOrigin(Clock::time_point origin) { origin_ = origin; }

 private:
  qint64 offsetToSystem() const {
    using namespace std::chrono;
    const auto a = system_clock::now();
    const auto steady = Clock::now();
    const auto b = system_clock::now();
    const qint64 system = duration_cast<nanoseconds>(a.time_since_epoch()).count() / 2 +
                          duration_cast<nanoseconds>(b.time_since_epoch()).count() / 2;
    return system - duration_cast<nanoseconds>(steady - origin_).count();
  }
  Clock::time_point origin_;
  qint64 offsetNs_ = 0;
  bool active_ = false;
};

double timedForward(run::DeviceForward& forward, const std::vector<c10::IValue>& inputs) {
  const auto start = Clock::now();
  forward(inputs);
  if (!forward.device().is_cpu()) torch::cuda::synchronize();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Ops that the interpreter runs without the dispatcher (no event of their own) but whose
// implementation calls dispatched ops: those events belong to them.
const QHash<QString, QSet<QString>>& silentCallers() {
  static const QHash<QString, QSet<QString>> table = [] {
    const QSet<QString> scalar{QStringLiteral("aten::item"), QStringLiteral("aten::_local_scalar_dense")};
    const QSet<QString> construct{QStringLiteral("aten::empty"),      QStringLiteral("aten::fill_"),
                                  QStringLiteral("aten::to"),         QStringLiteral("aten::_to_copy"),
                                  QStringLiteral("aten::copy_"),      QStringLiteral("aten::empty_strided"),
                                  QStringLiteral("aten::lift_fresh"), QStringLiteral("aten::detach"),
                                  QStringLiteral("aten::alias")};
    QHash<QString, QSet<QString>> t;
    for (const char* k : {"aten::Int", "aten::Float", "aten::Bool", "aten::ScalarImplicit", "aten::IntImplicit",
                          "aten::FloatImplicit", "aten::__bool__"})
      t.insert(QLatin1String(k), scalar);
    for (const char* k : {"aten::tensor", "aten::as_tensor", "aten::scalar_tensor"})
      t.insert(QLatin1String(k), construct);
    return t;
  }();
  return table;
}

// The op kinds nested inside each top-level control-flow node (If/Loop blocks, any depth): the
// interpreter runs those ops with no node of their own in the view, so their time is the
// control-flow node's.
std::vector<QSet<QString>> nestedKinds(const model::Revision& revision, const model::GraphView& view) {
  std::unordered_map<model::NodeId, QSet<QString>> byNode;
  for (torch::jit::Node* n : revision.graph()->nodes()) {
    if (n->blocks().empty()) continue;
    auto& kinds = byNode[revision.idOf(n)];
    for (torch::jit::Block* b : n->blocks())
      model::forEachNode(b, [&](torch::jit::Node* inner) {
        if (inner->kind().is_prim()) return;
        const QString kind = QString::fromStdString(inner->kind().toQualString());
        kinds.insert(kind);
        kinds.unite(silentCallers().value(kind));
      });
  }
  std::vector<QSet<QString>> out(view.steps.size());
  for (int i = 0; i < view.steps.size(); ++i)
    if (auto it = byNode.find(view.steps[i].id); it != byNode.end()) out[i] = it->second;
  return out;
}

// Assigns each top-level event of one run (in start order) to the next graph node that can have
// caused it: a node of the same kind, a silent node known to call it (aten::Int -> aten::item),
// or a control-flow node whose blocks hold that kind. A size computation drawn as an attribute
// charges the op that reads it. Returns the events that fit nowhere.
QVector<int> matchRun(QVector<OpEvent>& events, const QVector<int>& topLevel, const model::GraphView& view,
                      const std::vector<QSet<QString>>& nested) {
  QVector<int> unmatched;
  const auto& silent = silentCallers();
  int cursor = 0;
  for (int i : topLevel) {
    auto& e = events[i];
    int k = cursor;
    bool stay = false;  // silent and control-flow nodes may cause several events
    for (; k < view.steps.size(); ++k) {
      const QString& kind = view.steps[k].kind;
      if (kind == e.name) break;
      if (nested[k].contains(e.name) || silent.value(kind).contains(e.name)) {
        stay = true;
        break;
      }
    }
    if (k == view.steps.size()) {
      unmatched << i;
      continue;
    }
    e.node = view.steps[k].chargedTo;
    cursor = stay ? k : k + 1;
  }
  return unmatched;
}

// Why an event matched no node, per op kind, for the report.
QString unmatchedReason(const QString& kind, const model::GraphView& view) {
  const bool inGraph = std::any_of(view.steps.begin(), view.steps.end(), [&](const auto& n) { return n.kind == kind; });
  return inGraph ? QStringLiteral("ran more often or in another order than the graph's %1 nodes").arg(kind)
                 : QStringLiteral("no graph node calls it directly: the interpreter or a method call ran it");
}

}  // namespace

Profile profileRevision(const model::Revision& revision, const std::vector<c10::IValue>& givenInputs,
                        const ProfileOptions& options) {
  const std::vector<c10::IValue> inputs = run::withDefaults(revision, givenInputs);
  if (options.runs < 1) throw std::runtime_error("--runs must be at least 1");
  run::ensureThreads();
  torch::NoGradGuard noGrad;
  // Time the graph as written, as the executor runs it (one guard for both; see executor.cpp).
  run::GraphAsWritten asWritten;
  const c10::Device device = deviceOf(inputs);
  run::DeviceForward forward(revision, device);
  const auto view = model::GraphView::build(revision);
  Profile profile;
  profile.warmup = options.warmup;
  profile.threads = run::currentThreads();
  profile.device = QString::fromStdString(device.str());

  Recorder recorder;
  recorder.origin = Clock::now();
  // On CUDA, kernels come from the profiler's GPU activity; only without it does each op wait.
  const bool onCuda = device.is_cuda();
  bool kernels = onCuda;
  DeviceActivity activity;
  activity.setOrigin(recorder.origin);
  QVector<ActivityRecord> records;
  recorder.syncOps = !device.is_cpu() && !kernels;
  recorder.generation = ++gGeneration;
  Recorder* expected = nullptr;
  if (!gRecorder.compare_exchange_strong(expected, &recorder))
    throw std::runtime_error("another profile is running in this process");
  // Timed runs ask for no inputs (RecordFunction then copies nothing per event); the shapes run does.
  auto addCallback = [](bool needsInputs) {
    return at::addThreadLocalCallback(
        at::RecordFunctionCallback(&onStart, &onEnd).needsInputs(needsInputs).scopes({at::RecordScope::FUNCTION}));
  };
  struct Cleanup {
    at::CallbackHandle handle;
    ~Cleanup() {
      at::removeCallback(handle);
      gRecorder.store(nullptr);
      tlsBuffer = nullptr;
    }
  } cleanup{addCallback(false)};

  const int total = options.warmup + options.runs;
  MemoryRecord memory;
  try {
    // One untimed sizing run: the buffers are then reserved for every measured run's events.
    recorder.capacity = 1 << 16;
    if (kernels) {
      // The first start initialises CUPTI (slow): in this untimed run, which also says whether
      // the profiler can collect here at all.
      try {
        activity.start();
      } catch (const std::exception& e) {
        kernels = false;
        recorder.syncOps = true;
        profile.kernelNote = QStringLiteral("the profiler's GPU activity is not available (%1): each op was "
                                            "synchronised instead")
                                 .arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
      }
    }
    recorder.recording = true;
    forward(inputs);
    recorder.recording = false;
    if (kernels) {
      if (!device.is_cpu()) torch::cuda::synchronize();
      QVector<ActivityRecord> sizing;
      activity.stop(sizing);
    }
    size_t perRun = 0;
    for (const auto& b : recorder.buffers) perRun = std::max(perRun, b->events.size());
    recorder.capacity = (perRun + 16) * size_t(options.runs);
    for (auto& b : recorder.buffers) {
      b->events.clear();
      b->events.reserve(recorder.capacity);
    }
    for (int i = 0; i < total; ++i) {
      const bool measured = i >= options.warmup;
      // The baseline: the module's own forward with no callbacks recording, right before.
      const double plain = timedForward(forward, inputs);
      recorder.run = i - options.warmup;
      if (measured && kernels) activity.start();
      recorder.recording = measured;
      const double profiled = timedForward(forward, inputs);
      recorder.recording = false;
      if (measured && kernels) activity.stop(records);
      if (measured) {
        profile.forwardMs.push_back(plain);
        profile.runMs.push_back(profiled);
      }
      if (options.progress && !options.progress(i + 1, total)) {
        profile.cancelled = true;
        break;
      }
    }
    // Input shapes, recorded once in a separate untimed run (they cost an allocation per event).
    if (options.recordShapes && !profile.cancelled) {
      at::removeCallback(cleanup.handle);
      cleanup.handle = addCallback(true);
      recorder.shapesRun = true;
      recorder.recording = true;
      forward(inputs);
      recorder.recording = false;
    }
    if (options.recordMemory && !profile.cancelled) {
      memory = recordMemory(revision, inputs, device);
      profile.memoryRecorded = true;
      profile.peakBytes = memory.peakBytes;
      profile.memoryTimeline = memory.timeline;
      profile.memoryRunMs = memory.runMs;
    }
  } catch (const c10::Error& e) {
    throw std::runtime_error(e.what_without_backtrace());
  }

  // After the runs: names, lanes and shapes become OpEvents; top-level events meet graph nodes.
  // Events of other threads (intra-op workers) ran inside one of the caller's ops: nested.
  const ThreadBuffer* caller = recorder.buffers.empty() ? nullptr : recorder.buffers.front().get();
  for (const auto& b : recorder.buffers)
    for (const RawEvent& r : b->events) {
      OpEvent e;
      e.name = QString::fromLatin1(r.name);
      e.run = r.run;
      e.startNs = r.startNs;
      e.durationNs = r.durationNs;
      e.thread = b->lane;
      e.depth = b.get() == caller ? r.depth : r.depth + 1;
      profile.events.push_back(std::move(e));
    }
  std::stable_sort(profile.events.begin(), profile.events.end(), [](const OpEvent& a, const OpEvent& b) {
    return a.run != b.run ? a.run < b.run : a.startNs < b.startNs;
  });
  const auto nested = nestedKinds(revision, view);
  QHash<QString, int> unmatchedByKind;
  for (int r = 0, i = 0; r < profile.runMs.size(); ++r) {
    QVector<int> topLevel;
    for (; i < profile.events.size() && profile.events[i].run == r; ++i)
      if (profile.events[i].depth == 0) topLevel << i;
    if (r == 0 && topLevel.size() == recorder.shapes.size())
      for (int k = 0; k < topLevel.size(); ++k) profile.events[topLevel[k]].shapes = recorder.shapes[k];
    for (int u : matchRun(profile.events, topLevel, view, nested)) ++unmatchedByKind[profile.events[u].name];
  }
  for (auto it = unmatchedByKind.begin(); it != unmatchedByKind.end(); ++it) {
    profile.unmatchedEvents += it.value();
    profile.unmatched.push_back({it.key(), it.value(), unmatchedReason(it.key(), view)});
  }
  std::sort(profile.unmatched.begin(), profile.unmatched.end(), [](const auto& a, const auto& b) {
    return a.events != b.events ? a.events > b.events : a.op < b.op;
  });
  profile.run = Stats::of(profile.runMs);
  profile.forward = Stats::of(profile.forwardMs);

  // Kernels: each to the op whose host span holds its launch, so to that op's node.
  std::unordered_map<model::NodeId, QVector<double>> kernelPerRun;
  std::unordered_map<model::NodeId, int> kernelCalls;
  if (kernels) {
    // Should the two clocks not have been brought together, the launches say by how much.
    if (const qint64 shift = clockCorrection(records, profile.events); shift != 0) {
      for (auto& r : records) {
        r.startNs += shift;
        r.endNs += shift;
      }
      profile.kernelNote = QStringLiteral("the profiler's clock was %1 ms off the profile's: kernels placed by their "
                                          "launches instead")
                               .arg(-shift / 1e6, 0, 'f', 3);
    }
    auto attributed = attributeKernels(records, profile.events);
    profile.kernelsRecorded = true;
    profile.unattributedKernels = attributed.unattributed;
    profile.kernels = std::move(attributed.kernels);
    if (profile.kernels.isEmpty())
      profile.kernelNote = QStringLiteral("the profiler recorded no GPU activity (CUPTI may be unavailable)");
    QVector<double> total(profile.runMs.size(), 0.0);
    for (const auto& k : profile.kernels) {
      if (k.run < 0 || k.run >= total.size()) continue;
      total[k.run] += k.durationNs / 1e6;
      if (k.node != model::kNoNode && k.run == 0) ++kernelCalls[k.node];
    }
    profile.kernel = Stats::of(total);
    const auto perNode = kernelMsPerRun(profile.kernels, profile.runMs.size());
    for (auto it = perNode.begin(); it != perNode.end(); ++it) kernelPerRun[it.key()] = it.value();
  }

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
    NodeTiming timing{n.id, n.kind, n.modulePath, calls[n.id], Stats::of(it->second), memory.allocBytes.value(n.id)};
    if (auto k = kernelPerRun.find(n.id); k != kernelPerRun.end()) {
      timing.kernels = kernelCalls[n.id];
      timing.kernelMs = Stats::of(k->second);
    }
    profile.nodes.push_back(timing);
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
