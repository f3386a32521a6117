// The profiler: one event per executed op node per run, statistics, the baseline forward,
// and a Chrome trace that parses with those events.
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/model/graph_view.h"
#include "core/profile/kernel_attribution.h"
#include "core/profile/profile_job.h"
#include "core/profile/profiler.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/report/profile_report.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "core/samples/samples.h"
#include "test_support.h"

#include <torch/cuda.h>
#include <torch/script.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

// How far Graft's peak may lie from stock PyTorch's: a few hundred bytes of scalars and small
// tensors made or dropped a step apart, nothing of an activation's size.
constexpr qint64 kPeakSlack = 512;

// The highest value of a Chrome trace's "memory" counter track.
qint64 traceMemoryMax(const QJsonObject& trace) {
  qint64 highest = -1;
  for (const auto& e : trace.value("traceEvents").toArray())
    if (e.toObject().value("ph").toString() == "C" && e.toObject().value("name").toString() == "memory")
      highest = std::max(highest, e.toObject().value("args").toObject().value("allocated_bytes").toInteger());
  return highest;
}

}  // namespace

class TstProfile : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void oneEventPerOpNodePerRun_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QVector<qint64>>("shape");
    QTest::addColumn<QString>("device");
    for (const QString device : {"cpu", "cuda"}) {
      QTest::addRow("cnn-%s", qPrintable(device)) << "sample:cnn" << QVector<qint64>{1, 3, 32, 32} << device;
      QTest::addRow("mlp-%s", qPrintable(device)) << "sample:mlp" << QVector<qint64>{1, 64} << device;
      QTest::addRow("resnet18-%s", qPrintable(device)) << "resnet18.pt" << QVector<qint64>{1, 3, 224, 224} << device;
    }
  }
  void oneEventPerOpNodePerRun() {
    QFETCH(QString, model);
    QFETCH(QVector<qint64>, shape);
    QFETCH(QString, device);
    if (device == "cuda" && !torch::cuda::is_available()) QSKIP("CUDA is not available here: the CUDA rows run where it is");
    auto loaded = model.startsWith("sample:") ? io::loadSample(model.mid(7)) : io::loadFile(graft::test::testdata(model));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message() + "\n" + loaded.error.details));
    const auto rev = loaded.document->current();
    const auto view = model::GraphView::build(*rev);
    profile::ProfileOptions options;
    options.runs = 4;
    options.warmup = 1;
    int progressCalls = 0;
    options.progress = [&](int done, int total) { ++progressCalls; return done <= total; };
    const auto input = torch::randn(std::vector<int64_t>(shape.begin(), shape.end())).to(c10::Device(device.toStdString()));
    const auto p = profile::profileRevision(*rev, {input}, options);
    QVERIFY2(p.device.startsWith(device), qPrintable(p.device));
    QCOMPARE(progressCalls, 5);
    QCOMPARE(p.runMs.size(), 4);
    QCOMPARE(p.forwardMs.size(), 4);
    QCOMPARE(p.unmatchedEvents, 0);
    // Every non-prim node of these graphs goes through the dispatcher: exactly one event each run.
    for (int run = 0; run < 4; ++run) {
      QHash<model::NodeId, int> count;
      for (const auto& e : p.events)
        if (e.run == run && e.depth == 0) ++count[e.node];
      for (const auto& n : view.nodes)
        if (!n.kind.startsWith("prim::")) QVERIFY2(count.value(n.id) == 1, qPrintable(n.kind + " in run " + QString::number(run)));
      QCOMPARE(count.size(), view.opCount());
    }
    QCOMPARE(p.nodes.size(), view.opCount());
    double sum = 0;
    for (const auto& n : p.nodes) {
      QVERIFY(n.selfMs.p10 <= n.selfMs.median && n.selfMs.median <= n.selfMs.p90);
      sum += n.selfMs.median;
    }
    // Node times fit inside the run they were measured in.
    QVERIFY(sum <= p.run.p90 * 1.05);
    QVERIFY(p.forward.median > 0);
    if (device == "cpu") {
      QVERIFY(!p.kernelsRecorded);  // CPU profiling is unchanged: no device activity collected
      QVERIFY(p.kernels.isEmpty());
      return;
    }
    // On CUDA: kernels from the profiler's GPU activity, each given to the node that launched it.
    QVERIFY2(p.kernelsRecorded && !p.kernels.isEmpty(), qPrintable(p.kernelNote));
    int attributed = 0;
    for (const auto& k : p.kernels) attributed += k.node != model::kNoNode;
    QVERIFY2(attributed >= p.kernels.size() * 9 / 10, qPrintable(QStringLiteral("%1 of %2 kernels attributed").arg(attributed).arg(p.kernels.size())));
    for (const auto& n : p.nodes)
      if (n.op == QLatin1String("aten::conv2d") || n.op == QLatin1String("aten::linear") || n.op == QLatin1String("aten::_convolution"))
        QVERIFY2(n.kernels > 0 && n.kernelMs.median > 0, qPrintable(n.op + " launched no kernel"));
    // The kernels of a run sit inside that run's wall time.
    QVERIFY(p.kernel.median > 0 && p.kernel.median <= p.run.p90 * 1.05);
  }

  // Kernel attribution against recorded activity: the profiler's device records (kernels with a
  // correlation id) and host records (the runtime call with the same id, at its host time), and
  // the top-level op spans of two runs.
  void kernelsGoToTheOpThatLaunchedThem() {
    auto op = [](const char* name, int run, qint64 start, qint64 duration, model::NodeId node, int depth = 0) {
      profile::OpEvent e;
      e.name = QLatin1String(name);
      e.run = run;
      e.startNs = start;
      e.durationNs = duration;
      e.node = node;
      e.depth = depth;
      return e;
    };
    QVector<profile::OpEvent> ops;
    for (int run = 0; run < 2; ++run) {
      const qint64 t = run * 100000;
      ops << op("aten::conv2d", run, t + 0, 100, 11)
          << op("aten::relu", run, t + 150, 150, 12)
          << op("aten::clamp_min", run, t + 160, 40, model::kNoNode, 1)  // nested in relu: not a launcher
          << op("aten::linear", run, t + 300, 100, 13);
    }
    std::reverse(ops.begin(), ops.end());  // any order
    auto host = [](quint64 corr, qint64 at) {
      return profile::ActivityRecord{QStringLiteral("cudaLaunchKernel"), false, corr, at, at + 5, 0};
    };
    auto kernel = [](const char* name, quint64 corr, qint64 start, qint64 end, qint64 stream = 7) {
      return profile::ActivityRecord{QLatin1String(name), true, corr, start, end, stream};
    };
    QVector<profile::ActivityRecord> activity;
    for (int run = 0; run < 2; ++run) {
      const qint64 t = run * 100000;
      const quint64 c = run * 100;
      activity << kernel("conv_kernel", c + 1, t + 500, t + 900) << host(c + 1, t + 50)  // device before host: any order
               << host(c + 2, t + 170) << kernel("relu_kernel", c + 2, t + 900, t + 950)   // inside relu's nested op
               << host(c + 3, t + 300) << kernel("gemm_a", c + 3, t + 950, t + 1150)       // on linear's first ns
               << kernel("gemm_b", c + 3, t + 1150, t + 1200)                             // one launch, two kernels
               << host(c + 4, t + 120) << kernel("memset", c + 4, t + 1200, t + 1210)      // in the gap: 20 ns after conv
               << host(c + 5, t + 50000) << kernel("stray", c + 5, t + 50010, t + 50020);  // far from every op
    }
    activity << kernel("no_launch", 999, 5, 10);  // no host record with its id, none after it
    // Recorded without their launching call: id 11 lies between ids 10 and 12, both calls made by
    // relu in run 0, so relu launched it; id 7 lies between 5 (the stray call) and 10 (relu's), so
    // its op is unknown, though its run is not.
    activity << host(10, 180) << host(12, 190) << kernel("driver_launch", 11, 960, 970)
             << kernel("between_ops", 7, 60000, 60010);
    const auto a = profile::attributeKernels(activity, ops, 1000);
    QCOMPARE(a.kernels.size(), 15);
    QCOMPARE(a.unattributed, 4);  // two strays, the one with no recorded call near, the one between ops
    for (int i = 1; i < a.kernels.size(); ++i) QVERIFY(a.kernels[i - 1].startNs <= a.kernels[i].startNs);
    QHash<QString, QVector<const profile::KernelEvent*>> byName;
    for (const auto& k : a.kernels) byName[k.name] << &k;
    auto check = [&](const char* name, model::NodeId node) {
      const auto& ks = byName.value(QLatin1String(name));
      QVERIFY2(ks.size() == 2, name);
      for (int run = 0; run < 2; ++run) {
        QCOMPARE(ks[run]->run, run);
        QVERIFY2(ks[run]->node == node, qPrintable(QStringLiteral("%1 run %2 went to %3").arg(name).arg(run).arg(ks[run]->node)));
        QCOMPARE(ks[run]->stream, qint64(7));
      }
    };
    check("conv_kernel", 11);
    check("relu_kernel", 12);
    check("gemm_a", 13);
    check("gemm_b", 13);
    check("memset", 11);
    QCOMPARE(byName.value("conv_kernel")[1]->launchNs, qint64(100050));
    QCOMPARE(byName.value("conv_kernel")[0]->durationNs, qint64(400));
    // Strays count in their run's total but belong to no node; without a launch, to no run either.
    QCOMPARE(byName.value("stray")[0]->node, model::kNoNode);
    QCOMPARE(byName.value("stray")[1]->run, 1);
    QCOMPARE(byName.value("no_launch")[0]->run, -1);
    QCOMPARE(byName.value("no_launch")[0]->launchNs, qint64(-1));
    QCOMPARE(byName.value("driver_launch")[0]->node, model::NodeId(12));
    QCOMPARE(byName.value("driver_launch")[0]->run, 0);
    QCOMPARE(byName.value("between_ops")[0]->node, model::kNoNode);
    QCOMPARE(byName.value("between_ops")[0]->run, 0);
    // Without a tolerance, the launch in the gap belongs to nobody.
    QCOMPARE(profile::attributeKernels(activity, ops, 0).unattributed, 6);

    // On the profile's clock most launches fall inside op spans: no correction.
    QCOMPARE(profile::clockCorrection(activity, ops), qint64(0));
    // The launches made inside ops, on a clock 5 s off: none falls in a span, and the correction
    // found from the launches alone puts every kernel back with its op.
    QVector<profile::ActivityRecord> shifted;
    for (const auto& r : activity)
      if (QSet<quint64>{1, 2, 3, 101, 102, 103}.contains(r.correlation)) shifted << r;
    const auto clean = profile::attributeKernels(shifted, ops, 0);
    QCOMPARE(clean.unattributed, 0);
    for (auto& r : shifted) {
      r.startNs += 5000000000;
      r.endNs += 5000000000;
    }
    QCOMPARE(profile::attributeKernels(shifted, ops, 0).unattributed, clean.kernels.size());
    const qint64 shift = profile::clockCorrection(shifted, ops);
    QVERIFY2(std::abs(shift + 5000000000) < 100, qPrintable(QString::number(shift)));
    for (auto& r : shifted) {
      r.startNs += shift;
      r.endNs += shift;
    }
    const auto realigned = profile::attributeKernels(shifted, ops, 0);
    QCOMPARE(realigned.unattributed, 0);
    for (int i = 0; i < realigned.kernels.size(); ++i) QCOMPARE(realigned.kernels[i].node, clean.kernels[i].node);

    const auto perRun = profile::kernelMsPerRun(a.kernels, 2);
    QCOMPARE(perRun.size(), 3);
    for (int run = 0; run < 2; ++run) {
      QCOMPARE(perRun.value(11)[run], (400 + 10) / 1e6);
      QCOMPARE(perRun.value(12)[run], (run == 0 ? 60 : 50) / 1e6);
      QCOMPARE(perRun.value(13)[run], (200 + 50) / 1e6);
    }
  }

  // Kernels in graft-cli's JSON (per node) and in the Chrome trace (a GPU process, a row per stream).
  void kernelsInTheReportAndTrace() {
    profile::Profile p;
    p.device = QStringLiteral("cuda:0");
    p.runMs = {2.0, 2.0};
    p.forwardMs = {1.9, 1.9};
    p.run = profile::Stats::of(p.runMs);
    p.forward = profile::Stats::of(p.forwardMs);
    profile::OpEvent e;
    e.name = QStringLiteral("aten::conv2d");
    e.node = 11;
    e.durationNs = 1000;
    p.events << e;
    profile::NodeTiming n;
    n.node = 11;
    n.op = e.name;
    n.modulePath = QStringLiteral("features.0");
    n.calls = 1;
    n.kernels = 2;
    n.kernelMs = profile::Stats::of({0.25, 0.35});
    p.nodes << n;
    p.kernelsRecorded = true;
    for (int run = 0; run < 2; ++run)
      for (qint64 stream : {7, 9}) {
        profile::KernelEvent k;
        k.name = QStringLiteral("implicit_gemm");
        k.run = run;
        k.node = 11;
        k.stream = stream;
        k.startNs = 5000 + run * 10000;
        k.durationNs = 1500;
        k.launchNs = 100;
        p.kernels << k;
      }
    p.unattributedKernels = 1;
    p.kernel = profile::Stats::of({0.3, 0.3});
    const auto json = report::profileReport(p);
    QCOMPARE(json.value("kernels_recorded").toBool(), true);
    QCOMPARE(json.value("unattributed_kernels").toInt(), 1);
    QCOMPARE(json.value("kernels_per_run").toDouble(), 2.0);
    const auto node = json.value("nodes").toArray().at(0).toObject();
    QCOMPARE(node.value("kernels").toInt(), 2);
    QCOMPARE(node.value("kernel_ms_median").toDouble(), n.kernelMs.median);
    const auto trace = report::chromeTrace(p, QStringLiteral("m"));
    int kernelEvents = 0;
    QSet<qint64> rows;
    bool gpuNamed = false;
    for (const auto& v : trace.value("traceEvents").toArray()) {
      const auto o = v.toObject();
      if (o.value("cat").toString() == "kernel") {
        ++kernelEvents;
        QCOMPARE(o.value("pid").toInt(), 2);
        QCOMPARE(o.value("dur").toDouble(), 1.5);
        QCOMPARE(o.value("args").toObject().value("node").toString(), QStringLiteral("11"));
        QCOMPARE(o.value("args").toObject().value("module_path").toString(), QStringLiteral("features.0"));
        rows.insert(o.value("tid").toInteger());
      }
      if (o.value("name").toString() == "process_name" && o.value("pid").toInt() == 2)
        gpuNamed = o.value("args").toObject().value("name").toString().contains("cuda:0");
    }
    QCOMPARE(kernelEvents, 4);
    QCOMPARE(rows, (QSet<qint64>{7, 9}));
    QVERIFY(gpuNamed);
    // A CPU profile says it recorded no kernels, and carries none of their keys.
    profile::Profile cpu = p;
    cpu.kernelsRecorded = false;
    cpu.kernels.clear();
    const auto cpuJson = report::profileReport(cpu);
    QCOMPARE(cpuJson.value("kernels_recorded").toBool(), false);
    QVERIFY(!cpuJson.contains("kernel_ms_median"));
    QVERIFY(!cpuJson.value("nodes").toArray().at(0).toObject().contains("kernels"));
  }
  void chromeTraceParses() {
    auto doc = io::loadSample(QStringLiteral("cnn")).document;
    profile::ProfileOptions options;
    options.runs = 3;
    options.warmup = 0;
    const auto p = profile::profileRevision(*doc->current(), {torch::randn({1, 3, 32, 32})}, options);
    QCOMPARE(p.unmatchedEvents, 0);  // the first call of a module must not add optimiser work
    const QByteArray bytes = QJsonDocument(report::chromeTrace(p, QStringLiteral("cnn"))).toJson();
    QJsonParseError err;
    const auto parsed = QJsonDocument::fromJson(bytes, &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    int nodeEvents = 0;
    for (const auto& v : parsed.object().value("traceEvents").toArray()) {
      const auto e = v.toObject();
      if (e.value("ph").toString() != "X") continue;
      QVERIFY(e.contains("ts") && e.contains("dur") && e.contains("tid") && e.contains("name"));
      QVERIFY(e.value("dur").toDouble() >= 0);
      if (e.value("cat").toString() == "node") {
        ++nodeEvents;
        QVERIFY(!e.value("args").toObject().value("node").toString().isEmpty());
      }
    }
    QCOMPARE(nodeEvents, 3 * model::GraphView::build(*doc->current()).opCount());
    const auto json = report::profileReport(p);
    for (const char* key : {"runs", "median_ms", "p10_ms", "p90_ms", "forward_median_ms", "nodes", "by_op"})
      QVERIFY2(json.contains(QLatin1String(key)), key);
    QCOMPARE(json.value("runs").toInt(), 3);
    // The overhead as a ratio of medians and as the percentage it means.
    const double ratio = json.value("median_ms").toDouble() / json.value("forward_median_ms").toDouble();
    QVERIFY(qAbs(json.value("overhead_ratio").toDouble() - ratio) < 1e-9);
    QVERIFY(qAbs(json.value("overhead_percent").toDouble() - (ratio - 1) * 100) < 1e-6);
  }
  void foldConvBnShowsInTheProfile() {
    auto loaded = io::loadFile(graft::test::testdata(QStringLiteral("resnet18.pt")));
    QVERIFY(loaded.ok());
    auto& doc = *loaded.document;
    const auto library = rewrite::RuleLibrary::load();
    const auto* rule = library.find(QStringLiteral("fold-conv-bn"));
    QVERIFY(rule);
    auto folded = rewrite::applySteps(*doc.current(), {rewrite::Step::ofRule(*rule)}, doc.ids());
    QVERIFY2(folded.ok(), qPrintable(folded.error));
    graft::core::edit::Session(doc).commitBuilt(folded.revision);
    profile::ProfileOptions options;
    options.runs = 3;
    options.warmup = 1;
    const std::vector<c10::IValue> x{torch::randn({1, 3, 224, 224})};
    const auto before = profile::profileRevision(*doc.original(), x, options);
    const auto after = profile::profileRevision(*doc.current(), x, options);
    auto perRun = [](const profile::Profile& p, const QString& op) {
      int n = 0;
      for (const auto& e : p.events) n += e.depth == 0 && e.name == op;
      return n / p.runMs.size();
    };
    QCOMPARE(perRun(before, "aten::batch_norm"), 20);
    QCOMPARE(perRun(after, "aten::batch_norm"), 0);
    QCOMPARE(perRun(after, "aten::_convolution"), perRun(before, "aten::_convolution"));
    QVERIFY(perRun(after, "aten::_convolution") + perRun(after, "aten::batch_norm") <
            perRun(before, "aten::_convolution") + perRun(before, "aten::batch_norm"));
    bool beforeHasBn = false, afterHasBn = false;
    for (const auto& k : before.byOp) beforeHasBn |= k.op == "aten::batch_norm";
    for (const auto& k : after.byOp) afterHasBn |= k.op == "aten::batch_norm";
    QVERIFY(beforeHasBn && !afterHasBn);
  }
  // graft-cli profile --device cuda: profiles there (weights copied to the device, synchronised
  // timing), or, without CUDA, refuses in one line naming the reason.
  void cliProfilesOnCudaOrRefuses() {
    const auto r = graft::test::runCli({"profile", "--sample", "cnn", "--device", "cuda", "--runs", "3", "--warmup", "1", "--json"});
    if (!torch::cuda::is_available()) {
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains("CUDA is not available"), r.err.constData());
      QCOMPARE(r.err.trimmed().count('\n'), 0);
      return;
    }
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.json().value("device").toString().startsWith("cuda"));
    QCOMPARE(r.json().value("runs").toInt(), 3);
    QVERIFY(r.json().value("median_ms").toDouble() > 0);
  }

  void cancelStopsEarly() {
    auto doc = io::loadSample(QStringLiteral("mlp")).document;
    profile::ProfileOptions options;
    options.runs = 50;
    options.warmup = 0;
    options.progress = [](int done, int) { return done < 2; };
    const auto p = profile::profileRevision(*doc->current(), {torch::randn({1, 64})}, options);
    QVERIFY(p.cancelled);
    QCOMPARE(p.runMs.size(), 2);
  }
  // Every top-level event of a torchvision model belongs to a graph node, and the nodes' self
  // times add up to the profiled run (what is left is the interpreter's own work).
  void selfTimesSumToTheRun_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"resnet18", "resnet50", "vit_b_16", "mobilenet_v2", "densenet121"}) QTest::newRow(m) << QString::fromLatin1(m);
  }
  void selfTimesSumToTheRun() {
    QFETCH(QString, model);
    auto loaded = io::loadFile(graft::test::testdata(model + QStringLiteral(".pt")));
    if (!loaded.ok()) QSKIP("model not in the test data (make_models.py makes it)");
    profile::ProfileOptions options;
    options.runs = 5;
    options.warmup = 1;
    const auto p = profile::profileRevision(*loaded.document->current(), {torch::randn({1, 3, 224, 224})}, options);
    QCOMPARE(p.unmatchedEvents, 0);
    QVector<double> selfSum(p.runMs.size(), 0.0);
    for (const auto& e : p.events)
      if (e.depth == 0 && e.node != model::kNoNode) selfSum[e.run] += e.durationNs / 1e6;
    QVector<double> ratios;
    for (int r = 0; r < p.runMs.size(); ++r) ratios << selfSum[r] / p.runMs[r];
    std::sort(ratios.begin(), ratios.end());
    const double median = ratios[ratios.size() / 2];
    QVERIFY2(median >= 0.95 && median <= 1.0, qPrintable(QStringLiteral("self times / run = %1").arg(median)));
    // Input shapes come from the separate shapes run, on the first measured run's events: the
    // stem's op sees the image.
    QVERIFY(std::any_of(p.events.begin(), p.events.end(), [](const auto& e) {
      return e.run == 0 && e.depth == 0 && e.shapes.startsWith(QStringLiteral("[1, 3, 224, 224], ["));
    }));
  }
  // An int argument reaches forward as an int (the loop runs n times), not as a tensor.
  void scalarInputsProfile() {
    auto loaded = io::loadFile(graft::test::testdata(QStringLiteral("hard/loop_int.pt")));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    const auto in = io::parseInputs({QStringLiteral("2x8"), QStringLiteral("3"), QStringLiteral("0.5"), QStringLiteral("true"), QStringLiteral("none")}, 0);
    QVERIFY2(in.inputs, qPrintable(in.error));
    profile::ProfileOptions options;
    options.runs = 3;
    options.warmup = 1;
    const auto p = profile::profileWithInputs(*loaded.document->current(), *in.inputs, options);
    QCOMPARE(p.runMs.size(), 3);
    // Three trips of the loop: three aten::linear events per run.
    const auto linears = std::count_if(p.events.begin(), p.events.end(), [](const profile::OpEvent& e) {
      return e.run == 0 && e.name == QLatin1String("aten::linear");
    });
    QCOMPARE(int(linears), 3);
  }
  // A profile that fails names the node that raised, on every device, as compare does.
  void failedProfileNamesTheNode_data() {
    QTest::addColumn<QString>("device");
    QTest::newRow("cpu") << "cpu";
    QTest::newRow("cuda") << "cuda";
  }
  void failedProfileNamesTheNode() {
    QFETCH(QString, device);
    if (device == "cuda" && !torch::cuda::is_available()) QSKIP("CUDA is not available here: the CUDA row runs where it is");
    auto doc = io::loadSample(QStringLiteral("cnn")).document;
    model::InputSet inputs;
    inputs.values = {torch::randn({1, 5, 32, 32})};
    profile::ProfileOptions options;
    options.device = device;
    options.runs = 1;
    options.warmup = 0;
    const auto r = profile::runProfile(doc->current(), inputs, options);
    QVERIFY(!r.ok());
    QCOMPARE(r.diagnostics.size(), 1);
    const auto& d = r.diagnostics.front();
    QVERIFY2(d.node != model::kNoNode, qPrintable(d.message));
    QVERIFY2(d.message.contains("aten::conv2d (node ") || d.message.contains("aten::_convolution (node "), qPrintable(d.message));
    QVERIFY2(d.message.contains("channels"), qPrintable(d.message));
  }
  void wrongInputIsAReadableError() {
    auto doc = io::loadSample(QStringLiteral("cnn")).document;
    try {
      profile::profileRevision(*doc->current(), {torch::randn({1, 5, 32, 32})}, {});
      QFAIL("expected an error");
    } catch (const std::runtime_error& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains("channels"), e.what());
    }
  }

  // Memory against PyTorch's own profiler (tests/python/torch_memory.py: profile_memory=True, one
  // forward of the same file on an input of the same shape). Per node, what Graft charges lies
  // between PyTorch's net and gross allocation inside the same op call: a node keeps its outputs
  // (gross minus the scratch it freed) while the interpreter also frees the inputs it consumed
  // (net). A convolution keeps exactly its output tensor.
  void memoryMatchesTorchProfiler_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QVector<qint64>>("shape");
    QTest::addRow("cnn") << "run/run_cnn.pt" << QVector<qint64>{2, 3, 16, 16};
    QTest::addRow("resnet18") << "resnet18.pt" << QVector<qint64>{1, 3, 224, 224};
  }
  void memoryMatchesTorchProfiler() {
    QFETCH(QString, model);
    QFETCH(QVector<qint64>, shape);
    auto loaded = io::loadFile(graft::test::testdata(model));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    QStringList dims;
    for (qint64 d : shape) dims << QString::number(d);
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + "/tests/python/torch_memory.py",
                                           {graft::test::testdata(model), dims.join('x')});
    QVERIFY2(py.exitCode == 0, py.err.constData());
    const QJsonObject ref = py.json();
    const QJsonArray refOps = ref.value("ops").toArray();

    profile::ProfileOptions options;
    options.runs = 1;
    options.warmup = 0;
    options.recordMemory = true;
    const auto input = torch::randn(std::vector<int64_t>(shape.begin(), shape.end()));
    const auto p = profile::profileRevision(*loaded.document->current(), {input}, options);
    QVERIFY(p.memoryRecorded);

    // Each node's outputs, kept by a plain node-by-node run: what a node holds when it returns.
    run::Executor executor(loaded.document->current());
    run::RunOptions keep;
    keep.instrumented = true;
    keep.keepIntermediates = true;
    const auto kept = executor.run(model::InputSet{{input}, {}}, keep);
    QVERIFY(kept.ok);
    QHash<model::NodeId, qint64> outputBytes;
    for (const auto& n : kept.nodes)
      for (const auto& v : n.outputs)
        if (v.isTensor()) outputBytes[n.id] += v.toTensor().numel() * qint64(v.toTensor().element_size());

    QCOMPARE(p.nodes.size(), refOps.size());
    qint64 sum = 0, largest = 0;
    int convolutions = 0;
    for (int i = 0; i < p.nodes.size(); ++i) {
      const auto& n = p.nodes[i];
      const QJsonObject r = refOps[i].toObject();
      const QString where = QStringLiteral("%1 (#%2): graft %3, torch net %4, gross %5")
                                .arg(n.op).arg(i).arg(n.allocBytes).arg(r.value("net_bytes").toInteger())
                                .arg(r.value("allocated_bytes").toInteger());
      QCOMPARE(n.op, r.value("name").toString());
      QVERIFY2(n.allocBytes >= r.value("net_bytes").toInteger() && n.allocBytes <= r.value("allocated_bytes").toInteger(),
               qPrintable(where));
      if (n.op == "aten::_convolution" || n.op == "aten::conv2d") {
        QCOMPARE(n.allocBytes, outputBytes.value(n.node));
        ++convolutions;
      }
      sum += n.allocBytes;
      largest = std::max(largest, n.allocBytes);
    }
    QVERIFY(convolutions >= 3);
    // What nodes kept is part of everything allocated; the timeline never rises above the peak.
    QVERIFY(sum <= ref.value("allocated_bytes").toInteger());
    QCOMPARE(p.memoryTimeline.size(), p.nodes.size());
    for (const auto& point : p.memoryTimeline) QVERIFY(point.allocatedBytes <= point.peakBytes && point.peakBytes <= p.peakBytes);
    QVERIFY(p.memoryTimeline.last().allocatedBytes >= outputBytes.value(p.nodes.last().node));
    QVERIFY(largest > 0);
    // The peak: the executor hands a value to the node that uses it last and drops every other
    // value after its last use, as the interpreter does, so the peaks agree (within the few bytes
    // a differing scalar or bookkeeping allocation makes), and the trace's memory track reaches it.
    const qint64 torchPeak = ref.value("peak_bytes").toInteger();
    QVERIFY2(std::abs(p.peakBytes - torchPeak) <= kPeakSlack,
             qPrintable(QStringLiteral("peak: graft %1, torch %2").arg(p.peakBytes).arg(torchPeak)));
    QCOMPARE(traceMemoryMax(report::chromeTrace(p, model)), p.peakBytes);
  }

  // The same on a torch.export program (tests/python/make_memory_programs.py: a small Bart) run
  // as ep.module() by stock PyTorch, through graft-cli: peak_bytes, and the highest point of the
  // trace's "memory" counter, equal stock's peak. Its graph holds values no node reads (a select
  // of the embeddings, the aliases copy_ and fill_ return) that a node-by-node run must drop at
  // once, as fx's generated code does, or they keep their storage to the end of the run.
  void memoryOfProgramMatchesTorch_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("inputs");
    QTest::addRow("bart") << "bart" << 2;
  }
  void memoryOfProgramMatchesTorch() {
    QFETCH(QString, name);
    QFETCH(int, inputs);
    QTemporaryDir dir;
    const QString source = qEnvironmentVariable("GRAFT_SOURCE_DIR");
    const auto made = graft::test::runPython(source + "/tests/python/make_memory_programs.py", {dir.path()});
    QVERIFY2(made.exitCode == 0, made.err.right(4000).constData());
    const QString program = dir.filePath(name + ".pt2");
    QStringList files, args{"profile", program, "--runs", "1", "--warmup", "0", "--memory", "--json", "--trace", dir.filePath("trace.json")};
    for (int i = 0; i < inputs; ++i) {
      files << dir.filePath(QStringLiteral("%1.in%2.pt").arg(name).arg(i));
      args << "--input" << files.last();
    }
    const auto py = graft::test::runPython(source + "/tests/python/torch_memory.py", QStringList{program} + files);
    QVERIFY2(py.exitCode == 0, py.err.right(4000).constData());
    const qint64 torchPeak = py.json().value("peak_bytes").toInteger();
    const auto r = graft::test::runCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const qint64 peak = r.json().value("peak_bytes").toInteger();
    QVERIFY2(torchPeak > 0 && std::abs(peak - torchPeak) <= kPeakSlack,
             qPrintable(QStringLiteral("peak: graft %1, torch %2").arg(peak).arg(torchPeak)));
    QFile trace(dir.filePath("trace.json"));
    QVERIFY(trace.open(QIODevice::ReadOnly));
    QCOMPARE(traceMemoryMax(QJsonDocument::fromJson(trace.readAll()).object()), peak);
  }
  // Without --memory nothing is recorded or reported; with it, JSON, text and trace carry it.
  void cliReportsMemory() {
    QTemporaryDir dir;
    const QString trace = dir.filePath("trace.json");
    const auto plain = graft::test::runCli({"profile", "--sample", "cnn", "--runs", "2", "--warmup", "0", "--json", "--trace", trace});
    QVERIFY2(plain.exitCode == 0, plain.err.constData());
    QVERIFY(!plain.json().contains("peak_bytes"));
    QVERIFY(!plain.json().value("nodes").toArray().first().toObject().contains("alloc_bytes"));
    auto counters = [&] {
      QFile f(trace);
      f.open(QIODevice::ReadOnly);
      QJsonArray out;
      for (const auto& e : QJsonDocument::fromJson(f.readAll()).object().value("traceEvents").toArray())
        if (e.toObject().value("ph").toString() == "C") out.append(e);
      return out;
    };
    QVERIFY(counters().isEmpty());

    const auto r = graft::test::runCli({"profile", "--sample", "cnn", "--runs", "2", "--warmup", "0", "--memory", "--json", "--trace", trace});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const qint64 peak = r.json().value("peak_bytes").toInteger();
    QVERIFY(peak > 0);
    qint64 sum = 0;
    for (const auto& n : r.json().value("nodes").toArray()) {
      QVERIFY(n.toObject().contains("alloc_bytes"));
      sum += n.toObject().value("alloc_bytes").toInteger();
    }
    QVERIFY(sum >= peak / 2);  // the cnn's activations are most of what it allocates
    const QJsonArray c = counters();
    // A zero at the start, then per node the peak while it ran (at its start) and the level it left (at its end).
    QCOMPARE(c.size(), 2 * r.json().value("nodes").toArray().size() + 1);
    qint64 highest = 0;
    for (const auto& e : c) {
      QCOMPARE(e.toObject().value("name").toString(), QStringLiteral("memory"));
      highest = std::max(highest, e.toObject().value("args").toObject().value("allocated_bytes").toInteger());
    }
    QCOMPARE(highest, peak);
    const auto text = graft::test::runCli({"profile", "--sample", "cnn", "--runs", "2", "--warmup", "0", "--memory"});
    QVERIFY2(text.out.contains("memory:    peak "), text.out.constData());
  }
};

QTEST_GUILESS_MAIN(TstProfile)
#include "tst_profile.moc"
