// Hugging Face language models exported with torch.export (tests/python/make_lm_zoo.py: small
// configs, random weights, a dynamic batch and sequence, with and without run_decompositions()):
// each opens, counts its ops as torch.export does, names its flat inputs and outputs by their
// paths, gives ep.module()'s outputs at two sizes on both run paths, and compares equal with
// itself through graft-cli at both sizes. llama_static (transformers' static-cache recipe) writes
// its KV cache in place: each of its runs must start from the saved cache, as the references do.
// The decomposed programs build their masks from -inf and full(size, True).
#include "core/io/load.h"
#include "core/model/graph_view.h"
#include "core/run/compare.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "test_support.h"

#include <torch/serialize.h>

#include <atomic>
#include <thread>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

const QStringList kPrograms = {
    QStringLiteral("llama_dyn"),      QStringLiteral("llama_dyn_decomp"),   QStringLiteral("qwen2_dyn"),
    QStringLiteral("qwen2_dyn_decomp"), QStringLiteral("mistral_dyn"),      QStringLiteral("mistral_dyn_decomp"),
    QStringLiteral("gpt2_dyn"),       QStringLiteral("gpt2_dyn_decomp"),    QStringLiteral("bert_dyn"),
    QStringLiteral("bert_dyn_decomp"), QStringLiteral("t5enc_dyn"),         QStringLiteral("t5enc_dyn_decomp"),
    QStringLiteral("whisperenc_dyn"), QStringLiteral("whisperenc_dyn_decomp"), QStringLiteral("llama_static"),
};

c10::IValue readSaved(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  const QByteArray bytes = f.readAll();
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
}

std::vector<at::Tensor> tensorList(const c10::IValue& list) {
  std::vector<at::Tensor> out;
  for (const auto& v : list.toListRef()) out.push_back(v.toTensor());
  return out;
}

QStringList strings(const QJsonArray& a) {
  QStringList out;
  for (const auto& v : a) out << v.toString();
  return out;
}

}  // namespace

class TestLmZoo : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    const auto r = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_lm_zoo.py"),
                                          {zoo_.path()});
    QVERIFY2(r.exitCode == 0, r.err.right(4000).constData());
  }

  void programRunsAsPyTorch_data() {
    QTest::addColumn<QString>("name");
    for (const auto& name : kPrograms) QTest::newRow(qPrintable(name)) << name;
  }
  void programRunsAsPyTorch() {
    QFETCH(QString, name);
    const QDir dir(zoo_.path());
    QFile refFile(dir.filePath(name + QStringLiteral(".ref.json")));
    QVERIFY(refFile.open(QIODevice::ReadOnly));
    const QJsonObject ref = QJsonDocument::fromJson(refFile.readAll()).object();
    const QString program = dir.filePath(name + QStringLiteral(".pt2"));
    auto loaded = io::loadFile(program);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message() + QStringLiteral(": ") + loaded.error.details));
    const auto& doc = *loaded.document;
    QCOMPARE(model::GraphView::build(*doc.current()).programOps, ref.value(QStringLiteral("ops")).toInt());
    QCOMPARE(doc.inputNames(), strings(ref.value(QStringLiteral("inputs")).toArray()));
    QCOMPARE(doc.outputNames(), strings(ref.value(QStringLiteral("outputs")).toArray()));

    run::Executor executor(doc.current());
    const auto sizes = ref.value(QStringLiteral("sizes")).toArray();
    for (int i = 0; i < sizes.size(); ++i) {
      const QString stem = dir.filePath(QStringLiteral("%1.%2").arg(name).arg(i));
      const QString size = QStringLiteral("%1x%2").arg(sizes[i].toArray()[0].toInt()).arg(sizes[i].toArray()[1].toInt());
      model::InputSet inputs;
      QStringList inputFiles;
      for (const auto& t : tensorList(readSaved(stem + QStringLiteral(".in.pt")))) {
        inputs.values.push_back(t);
        inputFiles << QStringLiteral("--input") << stem + QStringLiteral(".in%1.pt").arg(inputFiles.size() / 2);
        const auto bytes = torch::pickle_save(t);
        QFile f(inputFiles.last());
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(bytes.data(), qint64(bytes.size())) == qint64(bytes.size()));
      }
      const auto expected = tensorList(readSaved(stem + QStringLiteral(".out.pt")));
      for (bool instrumented : {false, true}) {
        run::RunOptions options;
        options.instrumented = instrumented;
        const auto r = executor.run(inputs, options);
        QVERIFY2(r.ok, qPrintable(size + QStringLiteral(": ") + r.error.headline()));
        const auto flat = run::flattenTensors(r.outputs);
        QCOMPARE(flat.size(), expected.size());
        for (size_t k = 0; k < flat.size(); ++k) {
          const QString what = QStringLiteral("%1 at %2%3").arg(doc.outputNames().value(int(k)), size,
                                                               instrumented ? QStringLiteral(", instrumented") : QString());
          QCOMPARE(flat[k].sizes(), expected[k].sizes());
          const double diff = (flat[k] - expected[k]).abs().max().item<double>();
          qInfo("%s: %s max |Graft - PyTorch| = %g", qPrintable(name), qPrintable(what), diff);
          QVERIFY2(torch::allclose(flat[k], expected[k], 1e-4, 1e-5), qPrintable(what));
        }
      }
      auto arguments = QStringList{QStringLiteral("compare"), program, program} + inputFiles;
      const auto cli = graft::test::runCli(arguments);
      QVERIFY2(cli.exitCode == 0, qPrintable(size + QStringLiteral(": ") + QString::fromUtf8(cli.err + cli.out)));
    }
  }

  // The static cache is written in place by every run, and revisions share it: a Compare and the
  // History ledger running it at the same time must each get what a run alone gives.
  void concurrentRunsOfAStaticCacheAgree() {
    const QDir dir(zoo_.path());
    auto loaded = io::loadFile(dir.filePath(QStringLiteral("llama_static.pt2")));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    const auto revision = loaded.document->current();
    // Two sets of tokens: runs at once write different keys and values into the same cache.
    std::vector<model::InputSet> inputs(2);
    std::vector<std::vector<at::Tensor>> expected;
    for (int i = 0; i < 2; ++i) {
      for (const auto& t : tensorList(readSaved(dir.filePath(QStringLiteral("llama_static.%1.in.pt").arg(i)))))
        inputs[i].values.push_back(i == 0 ? t : (t + 7) % 50);
      const auto alone = run::Executor(revision).run(inputs[i], {});
      QVERIFY2(alone.ok, qPrintable(alone.error.headline()));
      expected.push_back(run::flattenTensors(alone.outputs));
    }
    QVERIFY(!torch::equal(expected[0][0], expected[1][0]));
    std::atomic<int> differing{0}, failed{0};
    const auto worker = [&](int which, bool instrumented) {
      run::Executor executor(revision);
      run::RunOptions options;
      options.instrumented = instrumented;
      for (int i = 0; i < 24; ++i) {
        const auto r = executor.run(inputs[which], options);
        if (!r.ok) {
          ++failed;
          continue;
        }
        const auto flat = run::flattenTensors(r.outputs);
        for (size_t k = 0; k < flat.size(); ++k)
          if (!torch::equal(flat[k], expected[which][k])) ++differing;
      }
    };
    std::thread a(worker, 0, false), b(worker, 1, true), c(worker, 1, false), d(worker, 0, true);
    for (auto* t : {&a, &b, &c, &d}) t->join();
    QCOMPARE(failed.load(), 0);
    QCOMPARE(differing.load(), 0);
  }

  // A save keeps every dynamic zoo program dynamic (batch and sequence; -inf masks included): stock torch.export.load runs the
  // saved program at both sizes with ep.module()'s outputs, its inputs symbolic and its ranges the
  // source's, and every value's metadata holds at both sizes (tests/python/check_dynamic_save.py).
  void savedProgramStaysDynamic_data() {
    QTest::addColumn<QString>("name");
    for (const QString& name : kPrograms)
      if (name.contains(QLatin1String("_dyn"))) QTest::newRow(qPrintable(name)) << name;
  }
  void savedProgramStaysDynamic() {
    QFETCH(QString, name);
    const QDir dir(zoo_.path());
    QTemporaryDir out;
    const QString saved = out.filePath(QStringLiteral("saved.pt2"));
    const auto rw = graft::test::runCli({QStringLiteral("rewrite"), dir.filePath(name + QStringLiteral(".pt2")), QStringLiteral("--pass"),
                                         QStringLiteral("dead-code-elimination"), QStringLiteral("-o"), saved});
    QVERIFY2(rw.exitCode == 0, rw.err.constData());
    QStringList args{saved};
    for (int i = 0; i < 2; ++i)
      args << dir.filePath(QStringLiteral("%1.%2.in.pt").arg(name).arg(i)) << dir.filePath(QStringLiteral("%1.%2.out.pt").arg(name).arg(i));
    const auto check = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_dynamic_save.py"), args);
    QVERIFY2(check.exitCode == 0, check.out + check.err.right(2000));
    const QJsonObject verdict = check.json();
    for (const auto& r : verdict.value(QStringLiteral("runs")).toArray()) {
      const QJsonObject run = r.toObject();
      qInfo("%s saved, at %s: max |saved - PyTorch| = %g", qPrintable(name),
            QJsonDocument(run.value(QStringLiteral("input_shape")).toArray()).toJson(QJsonDocument::Compact).constData(),
            run.value(QStringLiteral("max_abs")).toDouble());
      QVERIFY(run.value(QStringLiteral("close")).toBool());
      QVERIFY(run.value(QStringLiteral("meta_mismatches")).toArray().isEmpty());
    }
    for (const auto& input : verdict.value(QStringLiteral("symbolic_inputs")).toArray()) QVERIFY(input.toBool());
    auto source = io::loadFile(dir.filePath(name + QStringLiteral(".pt2")));
    QVERIFY(source.ok());
    QJsonObject expected;
    const model::SymbolRanges ranges = source.document->current()->symbolRanges();
    for (auto it = ranges.begin(); it != ranges.end(); ++it)
      expected.insert(it.key(), QJsonArray{it->min, it->max ? QJsonValue(*it->max) : QJsonValue()});
    QCOMPARE(verdict.value(QStringLiteral("range_constraints")).toObject(), expected);
  }

 private:
  QTemporaryDir zoo_;
};

QTEST_GUILESS_MAIN(TestLmZoo)
#include "tst_lm_zoo.moc"
