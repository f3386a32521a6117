// Loading: every class of bad file gets its own worded error and nothing crashes;
// good archives load frozen and unfrozen.
#include "core/io/atomic_write.h"
#include "core/io/file_policy.h"
#include "core/io/load.h"
#include "core/io/pickle_check.h"
#include "core/io/save.h"

#include <torch/script.h>
#include "test_support.h"

#include <QtCore/QElapsedTimer>
#include <QtTest/QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace graft::core;

class TstIo : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void badFiles_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("mustSay");
    QTest::newRow("missing") << "bad/no_such_file.pt" << int(io::LoadErrorKind::FileMissing) << "does not exist";
    QTest::newRow("folder") << "bad" << int(io::LoadErrorKind::FileUnreadable) << "is a folder";
    QTest::newRow("random bytes") << "bad/random.pt" << int(io::LoadErrorKind::NotAnArchive) << "not a zip file";
    QTest::newRow("text") << "bad/text.pt" << int(io::LoadErrorKind::NotAnArchive) << "not a zip file";
    QTest::newRow("state_dict") << "bad/state_dict.pt" << int(io::LoadErrorKind::StateDict) << "state_dict";
    QTest::newRow("pickled module") << "bad/pickled_module.pt" << int(io::LoadErrorKind::PickledModule) << "pickled Python nn.Module";
    QTest::newRow("onnx") << "bad/model.onnx" << int(io::LoadErrorKind::Onnx) << "ONNX";
    QTest::newRow("truncated") << "bad/truncated.pt" << int(io::LoadErrorKind::TruncatedArchive) << "truncated";
    QTest::newRow("unknown op") << "bad/unknown_op.pt" << int(io::LoadErrorKind::UnknownOperator) << "aten::graft_no_such_op";
  }
  void badFiles() {
    QFETCH(QString, file);
    QFETCH(int, kind);
    QFETCH(QString, mustSay);
    const auto result = io::loadFile(graft::test::testdata(file));
    QVERIFY(!result.ok());
    QCOMPARE(int(result.error.kind), kind);
    QVERIFY2(result.error.headline.contains(mustSay), qPrintable(result.error.headline));
    QVERIFY(!result.error.hint.isEmpty());
    // Where the file is not a model Graft reads, the hint names both ways to make one.
    const auto kindOf = io::LoadErrorKind(kind);
    if (kindOf == io::LoadErrorKind::NotAnArchive || kindOf == io::LoadErrorKind::StateDict ||
        kindOf == io::LoadErrorKind::PickledModule || kindOf == io::LoadErrorKind::Onnx) {
      QVERIFY2(result.error.hint.contains("torch.export"), qPrintable(result.error.hint));
      QVERIFY2(result.error.hint.contains("torch.jit.trace"), qPrintable(result.error.hint));
    }
  }
  // Damaged archives found by tests/fuzz/fuzz_load (the fuzz inputs are beside them in
  // tests/fuzz/regressions/load): the probe refuses them before libtorch allocates and zeroes the
  // 4 GB its pickles or records claim, or crashes on their source ranges.
  void damagedArchivesAreRefused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("mustSay");
    QTest::newRow("code debug pickle") << "debug_pickle_claims_4gb.pt" << "debug_pkl: a value at byte";
    QTest::newRow("conv debug pickle") << "conv_debug_pickle_claims_4gb.pt" << "debug_pkl: a value at byte";
    // libtorch crashed (SEGV) reading its source ranges while wording a compile error.
    QTest::newRow("malformed source ranges") << "debug_pickle_bad_text_index.pt" << "debug_pkl";
    // libtorch allocates a record's stated size (here 4 GB in a 18 KB file) before reading it.
    QTest::newRow("record size") << "code_record_claims_4gb.pt" << "claims 4211015696 bytes";
  }
  void damagedArchivesAreRefused() {
    QFETCH(QString, file);
    QFETCH(QString, mustSay);
    const auto result = io::loadFile(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/fuzz/regressions/load/") + file);
    QVERIFY(!result.ok());
    QCOMPARE(int(result.error.kind), int(io::LoadErrorKind::TruncatedArchive));
    QVERIFY2(result.error.headline.contains(QLatin1String("damaged")), qPrintable(result.error.headline));
    QVERIFY2(result.error.details.contains(mustSay), qPrintable(result.error.details));
  }
  // A .pt2 whose optional sample inputs claim a 3 GB string (tests/fuzz/regressions/load): libtorch
  // would allocate it; the program loads without example inputs instead.
  void damagedPt2SampleInputsAreIgnored() {
    const auto result = io::loadFile(qEnvironmentVariable("GRAFT_SOURCE_DIR") +
                                     QStringLiteral("/tests/fuzz/regressions/load/pt2_sample_inputs_claims_3gb.pt2"));
    QVERIFY2(result.ok(), qPrintable(result.error.message()));
    QCOMPARE(result.document->format(), QStringLiteral("pt2"));
    QVERIFY(!result.document->exampleInputs());
  }
  void pickleLengthsChecked() {
    auto check = [](const QByteArray& b) { return io::checkPickleLengths(b.constData(), std::size_t(b.size())); };
    const QByteArray good("\x80\x02" "ctorch\nFloatStorage\n" "X\x03\x00\x00\x00" "abcq\x00" "r\x01\x00\x00\x00" "K\x05" ".", 40);
    QVERIFY2(check(good).isEmpty(), qPrintable(check(good)));
    QVERIFY(!check(QByteArray("\x80\x02X\xf0\xff\xff\xff" "abc.", 11)).isEmpty());         // BINUNICODE past the end
    QVERIFY(!check(QByteArray("\x80\x02\x8d\x00\x00\x00\x00\x01\x00\x00\x00.", 13)).isEmpty());  // BINUNICODE8
    QVERIFY(!check(QByteArray("\x80\x02N" "r\x61\x61\x65\x71" ".", 9)).isEmpty());          // a 1.9e9 memo index
    QVERIFY(!check(QByteArray("\x80\x02\x8c\x09" "abc", 7)).isEmpty());                    // SHORT_BINUNICODE
    QVERIFY(!check(QByteArray("\x80\x02" "ctorch\nFloat", 14)).isEmpty());                 // GLOBAL without its newline
    QVERIFY(check(QByteArray("\x80\x02\xff\xff\xff", 5)).isEmpty());                       // unknown: libtorch judges
  }
  void hintsSayHowToMakeAModule() {
    for (const char* f : {"bad/state_dict.pt", "bad/pickled_module.pt"}) {
      const auto result = io::loadFile(graft::test::testdata(QString::fromLatin1(f)));
      QVERIFY(result.error.hint.contains(QStringLiteral("torch.jit.trace(")));
    }
    const auto unknown = io::loadFile(graft::test::testdata(QStringLiteral("bad/unknown_op.pt")));
    QVERIFY(unknown.error.hint.contains(QStringLiteral("libtorch 2.")));
  }
  void goodArchiveLoadsFrozenAndUnfrozen() {
    const QString path = graft::test::testdata(QStringLiteral("bad/good_small.pt"));
    const auto frozen = io::loadFile(path);
    QVERIFY2(frozen.ok(), qPrintable(frozen.error.message()));
    QVERIFY(frozen.document->current()->frozen());
    QVERIFY(!frozen.document->current()->irText().contains(QStringLiteral("prim::GetAttr")));
    QCOMPARE(frozen.document->sourceSha256().size(), 64);
    io::LoadOptions keep;
    keep.freeze = false;
    const auto unfrozen = io::loadFile(path, keep);
    QVERIFY(unfrozen.ok());
    QVERIFY(!unfrozen.document->current()->frozen());
    QVERIFY(unfrozen.document->current()->irText().contains(QStringLiteral("prim::GetAttr")));
    // Inlined: no call into a submodule's forward is left.
    QVERIFY(!unfrozen.document->current()->irText().contains(QStringLiteral("prim::CallMethod")));
  }
  void savedRevisionLoadsInStockPyTorch() {
    auto doc = io::loadSample(QStringLiteral("cnn")).document;
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("cnn.pt"));
    const auto saved = io::saveRevision(*doc->current(), out);
    QVERIFY2(saved.ok, qPrintable(saved.error));
    // Graft reloads it and computes the same thing...
    auto again = io::loadFile(out);
    QVERIFY2(again.ok(), qPrintable(again.error.message()));
    at::manual_seed(3);
    auto x = torch::randn({1, 3, 32, 32});
    auto a = doc->current()->runnable().forward({x}).toTensor();
    auto b = again.document->current()->runnable().forward({x}).toTensor();
    QVERIFY(torch::equal(a, b));
    // ...and stock PyTorch loads and runs it.
    QTemporaryFile script;
    QVERIFY(script.open());
    script.write("import sys, torch\nm = torch.jit.load(sys.argv[1])\nprint(tuple(m(torch.randn(1, 3, 32, 32)).shape))\n");
    script.close();
    const auto py = graft::test::runPython(script.fileName(), {out});
    QVERIFY2(py.exitCode == 0, py.err.constData());
    QCOMPARE(py.out.trimmed(), QByteArray("(1, 10)"));
  }
  void saveFailureLeavesNoPartialFile() {
    auto doc = io::loadSample(QStringLiteral("mlp")).document;
    const auto r = io::saveRevision(*doc->current(), QStringLiteral("/nonexistent-dir/x.pt"));
    QVERIFY(!r.ok);
    QVERIFY(r.error.contains(QStringLiteral("/nonexistent-dir/x.pt")));
  }
  void unknownSampleIsAnError() {
    const auto r = io::loadSample(QStringLiteral("no-such-sample"));
    QVERIFY(!r.ok());
    QCOMPARE(r.error.kind, io::LoadErrorKind::UnknownSample);
    QVERIFY(r.error.hint.contains(QStringLiteral("cnn")));
  }

  // The input policy (core/io/file_policy): regular files only, opened without blocking; files
  // whose size reads 0 but which have bytes are refused; a bound holds on every read.
  void inputPolicy_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("refusal");  // empty: read
    QTest::newRow("FIFO") << QStringLiteral("FIFO") << QStringLiteral("not a regular file");
    QTest::newRow("/dev/zero") << QStringLiteral("/dev/zero") << QStringLiteral("not a regular file");
    QTest::newRow("/dev/null") << QStringLiteral("/dev/null") << QStringLiteral("not a regular file");
    QTest::newRow("/dev/urandom") << QStringLiteral("/dev/urandom") << QStringLiteral("not a regular file");
    QTest::newRow("/proc/self/pagemap") << QStringLiteral("/proc/self/pagemap") << QStringLiteral("size of 0");
    QTest::newRow("/proc/self/maps") << QStringLiteral("/proc/self/maps") << QStringLiteral("size of 0");
    QTest::newRow("/proc/self/cmdline") << QStringLiteral("/proc/self/cmdline") << QStringLiteral("size of 0");
    QTest::newRow("folder") << QStringLiteral("/tmp") << QStringLiteral("folder");
    QTest::newRow("missing") << QStringLiteral("/nonexistent/x.pt") << QStringLiteral("does not exist");
    QTest::newRow("over the bound") << QStringLiteral("BIG") << QStringLiteral("reads such files up to");
    QTest::newRow("regular") << QStringLiteral("SMALL") << QString();
    QTest::newRow("empty") << QStringLiteral("EMPTY") << QString();
  }
  void inputPolicy() {
    QFETCH(QString, path);
    QFETCH(QString, refusal);
    QTemporaryDir dir;
    auto make = [&](const char* name, qsizetype bytes) {
      QFile f(dir.filePath(QString::fromLatin1(name)));
      if (f.open(QIODevice::WriteOnly)) f.write(QByteArray(bytes, 'x'));
      return f.fileName();
    };
    if (path == QLatin1String("FIFO")) {
      path = dir.filePath(QStringLiteral("fifo"));
      QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
    } else if (path == QLatin1String("BIG")) {
      path = make("big", 4097);
    } else if (path == QLatin1String("SMALL")) {
      path = make("small", 4096);
    } else if (path == QLatin1String("EMPTY")) {
      path = make("empty", 0);
    }
    QElapsedTimer clock;
    clock.start();
    QString error;
    const auto bytes = io::readInputFile(path, 4096, QStringLiteral("input"), &error);
    const QString checked = io::checkInputFile(path, QStringLiteral("model"));
    QVERIFY(clock.elapsed() < 5000);  // never blocks, never reads far
    if (refusal.isEmpty()) {
      QVERIFY2(bytes, qPrintable(error));
      QCOMPARE(bytes->size(), QFileInfo(path).size());
      QVERIFY2(checked.isEmpty(), qPrintable(checked));
    } else {
      QVERIFY(!bytes);
      QVERIFY2(error.contains(refusal), qPrintable(error));
      if (!path.endsWith(QLatin1String("big")))
        QVERIFY2(checked.contains(refusal), qPrintable(checked));
    }
  }

  // The output policy: never a device, a FIFO or a folder; never an input, by its path, a symlink
  // or a hard link; a new file or another regular file is fine.
  void outputPolicy() {
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("m.pt"));
    QFile f(model);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("model");
    f.close();
    const QString link = dir.filePath(QStringLiteral("link.pt")), hard = dir.filePath(QStringLiteral("hard.pt"));
    QVERIFY(QFile::link(model, link));
    QVERIFY(::link(QFile::encodeName(model).constData(), QFile::encodeName(hard).constData()) == 0);
    const QString fifo = dir.filePath(QStringLiteral("fifo"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    for (const QString& same : {model, link, hard, dir.path() + QStringLiteral("/./m.pt"), dir.path() + QStringLiteral("/x/../m.pt")})
      QVERIFY2(io::checkOutputPath(same, {model}).contains(QLatin1String("refusing to overwrite")), qPrintable(same));
    for (const QString& device : {QStringLiteral("/dev/null"), QStringLiteral("/dev/full"), fifo, dir.path()})
      QVERIFY2(io::checkOutputPath(device, {}).contains(QLatin1String("not a regular file")), qPrintable(device));
    QVERIFY(io::checkOutputPath(dir.filePath(QStringLiteral("new.pt")), {model}).isEmpty());
    QVERIFY(io::checkOutputPath(model, {dir.filePath(QStringLiteral("other.pt"))}).isEmpty());
    // A write to an input is refused and leaves it as it was.
    QVERIFY(!io::writeAtomically(link, "overwritten", {model}).isEmpty());
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("model"));
  }

  // Outputs are written relative to their opened folder: a symbolic link put at the path while
  // the bytes are written (after the policy was checked) is never written through, the temporary
  // file goes, an existing file keeps its permissions, and a folder reached through a link works.
  void atomicWriteNeverFollowsALink() {
    QTemporaryDir dir;
    const QString victim = dir.filePath(QStringLiteral("victim.txt")), out = dir.filePath(QStringLiteral("out.txt"));
    QFile v(victim);
    QVERIFY(v.open(QIODevice::WriteOnly));
    v.write("the user's own file\n");
    v.close();
    const QString why = io::streamAtomically(out, [&](std::ostream& s) {
      s << "first half, ";
      QVERIFY(QFile::link(victim, out));  // swapped in between the check and the commit
      s << "second half";
    });
    QVERIFY2(why.contains(QLatin1String("link")), qPrintable(why));
    QVERIFY(v.open(QIODevice::ReadOnly));
    QCOMPARE(v.readAll(), QByteArray("the user's own file\n"));
    v.close();
    QVERIFY(QFileInfo(out).isSymLink());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::System).size(), 2);  // no temporary left
    // A link at the path before the write is refused by the policy, the same way.
    QVERIFY(io::writeAtomically(out, "through the link").contains(QLatin1String("symbolic link")));
    QVERIFY(v.open(QIODevice::ReadOnly));
    QCOMPARE(v.readAll(), QByteArray("the user's own file\n"));
    v.close();

    const QString kept = dir.filePath(QStringLiteral("kept.txt"));
    QVERIFY(io::writeAtomically(kept, "old").isEmpty());
    QVERIFY(::chmod(QFile::encodeName(kept).constData(), 0640) == 0);
    QVERIFY(io::writeAtomically(kept, "new").isEmpty());
    struct stat st {};
    QVERIFY(::stat(QFile::encodeName(kept).constData(), &st) == 0);
    QCOMPARE(int(st.st_mode & 07777), 0640);
    QFile k(kept);
    QVERIFY(k.open(QIODevice::ReadOnly));
    QCOMPARE(k.readAll(), QByteArray("new"));

    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("real")));
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("real")), dir.filePath(QStringLiteral("linked"))));
    QVERIFY(io::writeAtomically(dir.filePath(QStringLiteral("linked/a.txt")), "through a linked folder").isEmpty());
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("real/a.txt"))).isFile());
  }

  // Saving a document never writes over the file it was opened from.
  void saveNeverOverwritesTheOpenedModel() {
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("mlp.pt"));
    QVERIFY(io::saveRevision(*io::loadSample(QStringLiteral("mlp")).document->current(), model).ok);
    auto loaded = io::loadFile(model);
    QVERIFY(loaded.ok());
    const auto r = io::saveAs(*loaded.document, loaded.document->current(), model);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(QLatin1String("refusing to overwrite")), qPrintable(r.error));
  }
};

QTEST_GUILESS_MAIN(TstIo)
#include "tst_io.moc"
