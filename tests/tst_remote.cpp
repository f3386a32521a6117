// Remote devices (core/remote, python/graft/agent.py): compare and profile through ssh://HOST/DEVICE
// against a throwaway sshd on 127.0.0.1, whose "remote" Python is the venv's, must give what the
// same commands give locally; failures (no torch, a dead agent, ssh refused) name the host.
#include "core/edit/session.h"
#include "core/io/input_set.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "core/remote/agent_pool.h"
#include "core/remote/host_probe.h"
#include "core/remote/remote_compare.h"
#include "core/remote/remote_device.h"
#include "core/remote/remote_profile.h"
#include "core/rewrite/library.h"
#include "core/remote/ssh_command.h"
#include "loopback_sshd.h"
#include "measured_run.h"
#include "test_support.h"

#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtTest/QtTest>

#include <csignal>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace graft::core;
using graft::test::venvPython;

namespace {

QString program(const QString& name) { return graft::test::testdata(QStringLiteral("pt2/") + name); }

bool ranOk(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

}  // namespace

class TestRemote : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  graft::test::LoopbackSshd sshd_;
  QString skip_;
  QString remote_;  // ssh://graft-test/cpu?python=<venv>

  QString device(const QString& dev = QStringLiteral("cpu")) const {
    return QStringLiteral("ssh://graft-test/%1?python=%2").arg(dev, venvPython());
  }

  // `args` run here, then with --device-b on the loopback host, each writing its own -o (local.pt2,
  // remote.pt2 in `out`).
  std::pair<graft::test::CliResult, graft::test::CliResult> hereAndOnTheHost(const QStringList& args,
                                                                           const QTemporaryDir& out) {
    auto here = cli(args + QStringList{QStringLiteral("-o"), out.filePath(QStringLiteral("local.pt2"))});
    auto there = cli(args + QStringList{QStringLiteral("-o"), out.filePath(QStringLiteral("remote.pt2")),
                                        QStringLiteral("--device-b"), device()});
    return {std::move(here), std::move(there)};
  }

  // Progress lines of jobs run in this process (any thread).
  struct Lines {
    std::mutex mutex;
    QStringList lines;
    remote::AgentConnection::Progress callback() {
      return [this](const QString& line) {
        std::lock_guard lock(mutex);
        lines << line;
      };
    }
    QString all() {
      std::lock_guard lock(mutex);
      return lines.join(QLatin1Char('\n'));
    }
    void clear() {
      std::lock_guard lock(mutex);
      lines.clear();
    }
  };

  // The MLP pair (make_remote_pair.py) loaded here, for jobs run in this process.
  struct Pair {
    io::LoadResult a, b;
    std::optional<model::InputSet> inputs;
    run::CompareOptions options;
  };
  std::unique_ptr<Pair> loadPair() {
    auto p = std::make_unique<Pair>();
    p->a = io::loadFile(dir_.filePath(QStringLiteral("pair/mlp_a.pt2")));
    p->b = io::loadFile(dir_.filePath(QStringLiteral("pair/mlp_b.pt2")));
    if (!p->a.ok() || !p->b.ok()) return nullptr;
    p->inputs = io::inputsFor(*p->a.document, {}, 0).inputs;
    run::pairDocuments(*p->a.document, *p->a.document->current(), *p->b.document, *p->b.document->current(), p->options);
    return p->inputs ? std::move(p) : nullptr;
  }
  remote::RemoteCompareResult compareOnHost(Pair& p, Lines& lines) {
    return remote::compareWithRemoteB(p.a.document->current(), *p.b.document, p.b.document->current(), *p.inputs,
                                      p.options, *remote::parseRemoteDevice(device(), nullptr), 0, lines.callback());
  }
  // A long profile of B on the host in a thread of its own, started once the host is profiling;
  // `stop` ends it. Returns its error, and the agent's pid in `pid`.
  QString profileUntil(Pair& p, Lines& lines, const std::function<void(qint64 pid)>& stop) {
    QString error;
    std::thread job([&] {
      const auto r = remote::profileRemote(*p.b.document, p.b.document->current(), *p.inputs, 1000000, 0,
                                           *remote::parseRemoteDevice(device(), nullptr), 0, lines.callback(), cancel_.get());
      error = r.error;
    });
    static const QRegularExpression pidLine(QStringLiteral("pid (\\d+)"));
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 120000 && !lines.all().contains(QLatin1String("profiling on"))) QThread::msleep(50);
    QThread::msleep(500);  // inside the runs
    stop(pidLine.match(lines.all()).captured(1).toLongLong());
    job.join();
    return error;
  }
  std::unique_ptr<std::atomic<bool>> cancel_ = std::make_unique<std::atomic<bool>>(false);

  graft::test::CliResult cli(const QStringList& args) {
    auto r = graft::test::runCli(args);
    if (r.exitCode != 0 && r.exitCode != 1) qWarning().noquote() << "graft-cli" << args.join(' ') << "->" << r.exitCode << r.err;
    return r;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(QFileInfo::exists(venvPython()), qPrintable(venvPython()));
    const QString scripts = qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/");
    QVERIFY(ranOk(venvPython(), {scripts + QStringLiteral("make_remote_pair.py"), dir_.filePath(QStringLiteral("pair"))}));
    QVERIFY(ranOk(venvPython(), {scripts + QStringLiteral("make_printing_models.py"), dir_.filePath(QStringLiteral("printing"))}));
    skip_ = graft::test::LoopbackSshd::unavailable();
    if (!skip_.isEmpty()) return;
    QString why;
    QVERIFY2(sshd_.start(&why), qPrintable(QStringLiteral("sshd did not start: ") + why));
  }

  void cleanupTestCase() { sshd_.stop(); }

  void parsesDevices() {
    QString error;
    auto d = remote::parseRemoteDevice(QStringLiteral("ssh://gpu-box/cuda"), &error);
    QVERIFY(d);
    QCOMPARE(d->host, QStringLiteral("gpu-box"));
    QCOMPARE(d->device, QStringLiteral("cuda:0"));
    QVERIFY(d->python.isEmpty());
    d = remote::parseRemoteDevice(QStringLiteral("ssh://me@gpu-box/cuda:1?python=/opt/venv/bin/python"), &error);
    QVERIFY(d);
    QCOMPARE(d->host, QStringLiteral("me@gpu-box"));
    QCOMPARE(d->device, QStringLiteral("cuda:1"));
    QCOMPARE(d->python, QStringLiteral("/opt/venv/bin/python"));
    QCOMPARE(d->spec(), QStringLiteral("ssh://me@gpu-box/cuda:1?python=/opt/venv/bin/python"));
    for (const char* bad : {"ssh://gpu-box", "ssh:///cpu", "ssh://gpu-box/tpu", "ssh://-oProxyCommand=x/cpu",
                            "ssh://gpu-box/cpu?pyton=/x", "ssh://a b/cpu"}) {
      QVERIFY2(!remote::parseRemoteDevice(QLatin1String(bad), &error), bad);
      QVERIFY2(error.contains(QLatin1String(bad)), qPrintable(error));
    }
    // GRAFT_SSH_COMMAND is split as a shell would; the host and the command come last.
    QCOMPARE(remote::splitShellWords(QStringLiteral(" ssh -F '/tmp/a b/config' -o \"User=x y\" a\\ b ''")),
             (QStringList{"ssh", "-F", "/tmp/a b/config", "-o", "User=x y", "a b", ""}));
    const QByteArray saved = qgetenv("GRAFT_SSH_COMMAND");
    qputenv("GRAFT_SSH_COMMAND", "ssh -F '/tmp/a b/config' -o BatchMode=yes");
    const auto c = remote::sshCommand(*d, QStringLiteral("abc"));
    qputenv("GRAFT_SSH_COMMAND", saved);
    QCOMPARE(c.program, QStringLiteral("ssh"));
    QCOMPARE(c.arguments.mid(0, 5), (QStringList{"-F", "/tmp/a b/config", "-o", "BatchMode=yes", "me@gpu-box"}));
    QVERIFY(c.arguments.last().startsWith(QStringLiteral("exec '/opt/venv/bin/python' -c '")));
    QCOMPARE(remote::shellQuote(QStringLiteral("it's")), QStringLiteral("'it'\\''s'"));
  }

  // compare A B --device-b ssh://…/cpu gives the local compare's JSON, key for key: B runs on the
  // host (its per-node values from one node-by-node run there), A and the float64 reference
  // here, one rounding model.
  void compareEqualsLocal_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<bool>("perNode");
    QTest::addColumn<QStringList>("extra");
    const QString pair = dir_.filePath(QStringLiteral("pair/"));
    QTest::newRow("resnet18 pt2 against itself") << program("resnet18.pt2") << program("resnet18.pt2") << false << QStringList();
    QTest::newRow("resnet18 pt2 against its TorchScript twin") << program("resnet18.pt2") << program("resnet18.pt") << false << QStringList();
    QTest::newRow("bert (transformers) pt2") << program("bert.pt2") << program("bert.pt2") << false << QStringList();
    QTest::newRow("resnet18 pt2, per node") << program("resnet18.pt2") << program("resnet18.pt2") << true << QStringList();
    QTest::newRow("resnet18 against its decomposed program, per node") << program("resnet18.pt2") << program("resnet18_decomposed.pt2") << true << QStringList();
    QTest::newRow("bert, per node") << program("bert.pt2") << program("bert.pt2") << true << QStringList();
    QTest::newRow("different MLPs: first divergence") << pair + "mlp_a.pt2" << pair + "mlp_b.pt2" << false << QStringList();
    QTest::newRow("different MLPs, per node") << pair + "mlp_a.pt2" << pair + "mlp_b.pt2" << true << QStringList();
    // B at another dtype: the host runs B as model.half() makes it (rewrite/program_dtype.h), in
    // stock PyTorch; A and the float64 reference here.
    QTest::newRow("resnet18 pt2 at float16") << program("resnet18.pt2") << program("resnet18.pt2") << false
                                             << QStringList{QStringLiteral("--dtype-b"), QStringLiteral("float16")};
    QTest::newRow("bert at bfloat16, per node") << program("bert.pt2") << program("bert.pt2") << true
                                                << QStringList{QStringLiteral("--dtype-b"), QStringLiteral("bfloat16")};
  }
  void compareEqualsLocal() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(bool, perNode);
    QFETCH(QStringList, extra);
    QStringList common{QStringLiteral("compare"), a, b, QStringLiteral("--json"), QStringLiteral("--threads"), QStringLiteral("2")};
    common << extra;
    if (perNode) common << QStringLiteral("--per-node");
    const auto local = cli(common);
    const auto remote = cli(common + QStringList{QStringLiteral("--device-b"), device()});
    QVERIFY2(local.exitCode == 0 || local.exitCode == 1, local.err.constData());
    QCOMPARE(remote.exitCode, local.exitCode);
    QJsonObject l = local.json(), r = remote.json();
    QVERIFY(!l.value("outputs").toArray().isEmpty());
    // The device is named; the traffic is counted and said on stderr.
    QVERIFY2(r.value("device_b").toString().startsWith(QStringLiteral("graft-test:cpu, ")), qPrintable(r.value("device_b").toString()));
    QVERIFY(r.value("device_b").toString().contains(QStringLiteral("torch 2.")));
    const QJsonObject traffic = r.value("remote").toObject();
    QVERIFY(traffic.value("bytes_sent").toInteger() > 0);
    QVERIFY(traffic.value("bytes_received").toInteger() > 0);
    QVERIFY(traffic.value("round_trips").toInt() >= 3);
    QVERIFY2(remote.err.contains("graft-test: sent "), remote.err.constData());
    r.remove("device_b");
    r.remove("remote");
    // A node's own error at B's precision needs B's device here: a remote B names no culprit
    // (the key is absent: not measured, where null would say none was found).
    // Likewise each row's local_* figures; every other figure is the local run's.
    if (!extra.isEmpty()) {
      QVERIFY(!r.contains("culprit"));
      l.remove("culprit");
      QJsonArray rows;
      for (const auto& row : l.value("nodes").toArray()) {
        QJsonObject o = row.toObject();
        for (const QString& key : o.keys())
          if (key.startsWith(QLatin1String("local_"))) o.remove(key);
        rows.append(o);
      }
      if (l.contains("nodes")) l.insert("nodes", rows);
    }
    const auto text = [](const QJsonValue& v) {
      return QString::fromUtf8(QJsonDocument(QJsonObject{{"v", v}}).toJson(QJsonDocument::Compact)).left(900);
    };
    for (auto it = l.begin(); it != l.end(); ++it) {
      QJsonValue remoteValue = r.value(it.key()), localValue = it.value();
      // Of two lists, the first entry that differs.
      if (remoteValue.isArray() && localValue.isArray() && remoteValue != localValue)
        for (qsizetype k = 0; k < std::min(remoteValue.toArray().size(), localValue.toArray().size()); ++k)
          if (remoteValue.toArray().at(k) != localValue.toArray().at(k)) {
            remoteValue = remoteValue.toArray().at(k);
            localValue = localValue.toArray().at(k);
            break;
          }
      QVERIFY2(r.value(it.key()) == it.value(),
               qPrintable(QStringLiteral("%1: remote %2\nlocal %3").arg(it.key(), text(remoteValue), text(localValue))));
    }
    QCOMPARE(r.keys(), l.keys());
    if (l.value("verdict").toString() == QLatin1String("outputs_differ"))
      QVERIFY(!r.value("first_divergence").toObject().isEmpty());
    if (perNode) QCOMPARE(r.value("nodes").toArray().size(), l.value("nodes").toArray().size());
  }

  // precision --device-b ssh://…: each check's float16 side runs on the host as it will be saved
  // (stock PyTorch there), the ranking here; on the host's CPU the answer is the local one: the
  // same nodes kept, the same error after, and the saved file the same bytes.
  void precisionOnAHost() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QTemporaryDir out;
    const QString model = graft::test::testdata(QStringLiteral("numerics/culprit.pt2"));
    const QStringList common{QStringLiteral("precision"), model, QStringLiteral("--input"),
                             graft::test::testdata(QStringLiteral("numerics/culprit.x.pt")), QStringLiteral("--dtype-b"),
                             QStringLiteral("float16"), QStringLiteral("--atol"), QStringLiteral("1e-2"),
                             QStringLiteral("--rtol"), QStringLiteral("1e-2"), QStringLiteral("--json")};
    const auto [local, remote] = hereAndOnTheHost(common, out);
    QVERIFY2(local.exitCode == 0, local.err.constData());
    QVERIFY2(remote.exitCode == 0, remote.err.constData());
    const QJsonObject l = local.json(), r = remote.json();
    QVERIFY(!l.value("nodes").toArray().isEmpty());
    QCOMPARE(r.value("nodes"), l.value("nodes"));
    QCOMPARE(r.value("after").toObject().value("max_abs"), l.value("after").toObject().value("max_abs"));
    QCOMPARE(r.value("before").toObject().value("max_abs"), l.value("before").toObject().value("max_abs"));
    QVERIFY2(r.value("device_b").toString().startsWith(QStringLiteral("graft-test:cpu, ")), qPrintable(r.value("device_b").toString()));
    QVERIFY2(remote.err.contains("graft-test: sent "), remote.err.constData());
    QFile a(out.filePath(QStringLiteral("local.pt2"))), b(out.filePath(QStringLiteral("remote.pt2")));
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    QVERIFY(a.readAll() == b.readAll());
  }

  // reduce --device-b ssh://…: B's runs (the model node by node, then each candidate subgraph)
  // go to the host over one connection, as B at float16 as the host runs it; on the host's CPU the
  // repro is the local one: the same nodes, the same failing node, the same failure.
  void reduceOnAHost() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QTemporaryDir out;
    const QStringList common{QStringLiteral("reduce"), graft::test::testdata(QStringLiteral("numerics/culprit.pt2")),
                             QStringLiteral("--input"), graft::test::testdata(QStringLiteral("numerics/culprit.x.pt")),
                             QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("--json")};
    const auto [local, remote] = hereAndOnTheHost(common, out);
    QVERIFY2(local.exitCode == 0, local.err.constData());
    QVERIFY2(remote.exitCode == 0, remote.err.constData());
    const QJsonObject l = local.json(), r = remote.json();
    for (const char* key : {"subgraph", "failing", "nodes", "boundary"})
      QVERIFY2(r.value(QLatin1String(key)) == l.value(QLatin1String(key)), key);
    QCOMPARE(r.value("failure").toObject().value("max_abs"), l.value("failure").toObject().value("max_abs"));
    QVERIFY2(r.value("device_b").toString().startsWith(QStringLiteral("graft-test:cpu, ")), qPrintable(r.value("device_b").toString()));
    // One connection for the whole job: one hello, however many subgraphs ran.
    QCOMPARE(remote.err.count("graft-test: connecting"), 1);
    QVERIFY2(remote.err.contains("graft-test: sent "), remote.err.constData());
    // A TorchScript model is refused before connecting.
    const auto ts = graft::test::runCli({QStringLiteral("reduce"), graft::test::testdata(QStringLiteral("numerics/culprit.pt")),
                                         QStringLiteral("--input"), graft::test::testdata(QStringLiteral("numerics/culprit.x.pt")),
                                         QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("-o"),
                                         out.filePath(QStringLiteral("ts.pt2")), QStringLiteral("--device-b"), device()});
    QCOMPARE(ts.exitCode, 2);
    QVERIFY2(ts.err.contains("needs a torch.export program") && !ts.err.contains("connecting"), ts.err.constData());
  }

  // What a remote side cannot do yet is refused before anything runs, saying what to do instead.
  void refusesWhatItCannotDoYet() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    const QList<QPair<QStringList, QByteArray>> cases{
        {{program("resnet18.pt2"), program("resnet18.pt"), "--per-node", "--device-b", device()}, "--per-node with a remote B needs B as a torch.export program"},
        {{program("resnet18.pt2"), "--dtype-b", "float16", "--autocast", "--device-b", device()}, "--autocast with a remote B is not supported yet"},
        {{program("resnet18.pt2"), "--dtype-b", "float16", "--casts", "as-written", "--device-b", device()}, "--casts as-written needs B on this machine"},
        {{program("resnet18.pt2"), "--device", device()}, "A runs on this machine; give the remote device as --device-b"},
        {{program("resnet18.pt2"), "--device-b", "ssh://graft-test/tpu"}, "unknown DEVICE 'tpu'"}};
    for (const auto& [args, message] : cases) {
      const auto r = graft::test::runCli(QStringList{QStringLiteral("compare")} + args);
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains(message) && !r.err.contains("connecting"), r.err.constData());
    }
  }

  // A revision goes up once: the second job finds it cached on the host (by SHA-256) and sends
  // only the inputs.
  void modelIsCachedOnTheHost() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    const QStringList args{QStringLiteral("compare"), program("resnet18.pt2"), QStringLiteral("--json"), QStringLiteral("--device-b"), device()};
    const auto first = cli(args);
    const auto second = cli(args);
    QCOMPARE(second.exitCode, first.exitCode);
    const qint64 model = QFileInfo(program("resnet18.pt2")).size();
    const QJsonObject t = second.json().value("remote").toObject();
    QCOMPARE(t.value("model_sent").toBool(), false);
    QVERIFY2(t.value("bytes_sent").toInteger() < model / 10, qPrintable(QString::number(t.value("bytes_sent").toInteger())));
    QVERIFY2(second.err.contains("is cached on the host"), second.err.constData());
  }

  // One agent per host for the process (core/remote/agent_pool.h): Test connection, a compare,
  // a second compare and a profile from another thread start one ssh; the second compare finds
  // B loaded in the agent (no hello, no model check, nothing sent but its inputs).
  void secondJobReusesTheAgent() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QTest::failOnWarning(QRegularExpression(QStringLiteral("thread|QSocketNotifier|QProcess")));
    auto& pool = remote::sharedAgentPool();
    pool.clear();
    QDir(sshd_.folder() + QStringLiteral("/cache/graft/models")).removeRecursively();  // B must go up once
    auto p = loadPair();
    QVERIFY(p);
    Lines lines;
    const int started = pool.agentsStarted();
    const auto probe = remote::probeHost(QStringLiteral("graft-test"), venvPython(), nullptr);
    QVERIFY2(probe.ok, qPrintable(probe.error));
    const auto first = compareOnHost(*p, lines);
    QVERIFY2(first.compare.ok, qPrintable(first.compare.error));
    QVERIFY(first.traffic.modelSent);
    const auto second = compareOnHost(*p, lines);
    QVERIFY2(second.compare.ok, qPrintable(second.compare.error));
    QCOMPARE(second.compare.equal, first.compare.equal);
    QCOMPARE(second.compare.outputs.front().maxAbs, first.compare.outputs.front().maxAbs);
    QVERIFY(!second.traffic.modelSent);
    // The same runs (the outputs differ: a node-by-node run finds where), without the hello, the
    // model check and the model.
    QCOMPARE(second.traffic.roundTrips, first.traffic.roundTrips - 3);
    const qint64 model = first.traffic.bytesSent - second.traffic.bytesSent;
    QVERIFY2(second.traffic.bytesSent < 2000 && model > 5 * second.traffic.bytesSent,
             qPrintable(QStringLiteral("first %1 B, second %2 B").arg(first.traffic.bytesSent).arg(second.traffic.bytesSent)));
    QVERIFY2(lines.all().contains(QLatin1String("graft-test: reusing the agent: pid")), qPrintable(lines.all()));
    QVERIFY2(lines.all().contains(QLatin1String("is cached on the host (the agent has it)")), qPrintable(lines.all()));
    QString profileError = QStringLiteral("did not run");
    std::thread other([&] {
      const auto r = remote::profileRemote(*p->b.document, p->b.document->current(), *p->inputs, 3, 1,
                                           *remote::parseRemoteDevice(device(), nullptr), 0, lines.callback());
      profileError = r.profile ? QString() : r.error;
    });
    other.join();
    QVERIFY2(profileError.isEmpty(), qPrintable(profileError));
    QCOMPARE(pool.agentsStarted() - started, 1);
    QCOMPARE(pool.idleConnections(), 1);
  }

  // The agent killed mid-job: that job's error names the host and the cause; the next job
  // starts a new agent and says so.
  void killedAgentReconnects() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    auto p = loadPair();
    QVERIFY(p);
    auto& pool = remote::sharedAgentPool();
    Lines lines;
    QVERIFY(compareOnHost(*p, lines).compare.ok);  // an agent in the pool
    const int started = pool.agentsStarted();
    lines.clear();
    const QString error = profileUntil(*p, lines, [](qint64 pid) { QCOMPARE(::kill(pid_t(pid), SIGKILL), 0); });
    QVERIFY2(error.startsWith(QLatin1String("graft-test: the agent died during the profile")), qPrintable(error));
    QCOMPARE(pool.idleConnections(), 0);
    lines.clear();
    const auto next = compareOnHost(*p, lines);
    QVERIFY2(next.compare.ok, qPrintable(next.compare.error));
    QVERIFY2(lines.all().contains(QLatin1String("graft-test: reconnected (the previous connection ended: the agent died "
                                                "during the profile")),
             qPrintable(lines.all()));
    QCOMPARE(pool.agentsStarted() - started, 1);
  }

  // Cancel mid-job drops that connection from the pool (never reused mid-reply); the next job
  // starts a new agent, without a "reconnected": nothing dropped unasked.
  void cancelDropsTheConnection() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    auto p = loadPair();
    QVERIFY(p);
    auto& pool = remote::sharedAgentPool();
    Lines lines;
    QVERIFY(compareOnHost(*p, lines).compare.ok);
    const int started = pool.agentsStarted();
    const QString error = profileUntil(*p, lines, [this](qint64) { cancel_->store(true); });
    cancel_->store(false);
    QVERIFY2(error.contains(QLatin1String("graft-test: cancelled during the profile")), qPrintable(error));
    QCOMPARE(pool.idleConnections(), 0);
    lines.clear();
    const auto next = compareOnHost(*p, lines);
    QVERIFY2(next.compare.ok, qPrintable(next.compare.error));
    QVERIFY2(!lines.all().contains(QLatin1String("reconnected")), qPrintable(lines.all()));
    QCOMPARE(pool.agentsStarted() - started, 1);
    QCOMPARE(pool.idleConnections(), 1);
  }

  // An agent nobody sends a request to ends itself after its idle limit (hello's idle_s).
  void idleAgentEndsItself() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    remote::AgentConnection connection(*remote::parseRemoteDevice(device(), nullptr));
    connection.setAgentIdleLimit(2);
    QString error;
    QVERIFY2(connection.open({}, &error), qPrintable(error));
    QElapsedTimer t;
    t.start();
    QThread::msleep(1000);
    QVERIFY(connection.reusable());  // not before its limit
    while (connection.reusable() && t.elapsed() < 30000) QThread::msleep(200);
    QVERIFY2(!connection.reusable(), "the idle agent is still running");
    QVERIFY2(t.elapsed() >= 2000, qPrintable(QString::number(t.elapsed())));
  }

  // profile --device ssh://… returns sane figures, per node for a program, on Graft's node ids.
  void profileThroughSsh() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    const auto local = cli({QStringLiteral("profile"), program("resnet18.pt2"), QStringLiteral("--runs"), QStringLiteral("3"),
                            QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--json")});
    const auto remote = cli({QStringLiteral("profile"), program("resnet18.pt2"), QStringLiteral("--runs"), QStringLiteral("5"),
                             QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--json"), QStringLiteral("--device"), device()});
    QCOMPARE(local.exitCode, 0);
    QCOMPARE(remote.exitCode, 0);
    const QJsonObject l = local.json(), r = remote.json();
    QCOMPARE(r.value("runs").toInt(), 5);
    QVERIFY(r.value("per_node").toBool());
    const double median = r.value("median_ms").toDouble(), forward = r.value("forward_median_ms").toDouble();
    QVERIFY2(forward > 0.5 && forward < 60000, qPrintable(QString::number(forward)));
    QVERIFY2(median >= forward * 0.5, qPrintable(QStringLiteral("node by node %1 ms, forward %2 ms").arg(median).arg(forward)));
    QVERIFY(r.value("device").toString().startsWith(QStringLiteral("graft-test:cpu")));
    // The host's nodes land on Graft's nodes: the same ids and ops as the local profile's.
    QHash<QString, QString> localOps;  // node id -> op
    for (const auto n : l.value("nodes").toArray()) localOps.insert(n.toObject().value("node").toString(), n.toObject().value("op").toString());
    const QJsonArray nodes = r.value("nodes").toArray();
    QVERIFY2(nodes.size() >= localOps.size() * 9 / 10, qPrintable(QStringLiteral("%1 of %2").arg(nodes.size()).arg(localOps.size())));
    double sum = 0;
    for (const auto n : nodes) {
      const QJsonObject o = n.toObject();
      QVERIFY(localOps.contains(o.value("node").toString()));
      QCOMPARE(o.value("op").toString(), localOps.value(o.value("node").toString()));
      QVERIFY(o.value("self_ms_median").toDouble() >= 0);
      sum += o.value("self_ms_median").toDouble();
    }
    QVERIFY2(sum > 0.2 * median && sum <= 1.5 * median, qPrintable(QStringLiteral("nodes %1 ms, run %2 ms").arg(sum).arg(median)));
    QVERIFY(!r.value("by_op").toArray().isEmpty());
  }

  // shapes through ssh: the host runs the program node by node and sends dtypes and sizes only;
  // the report equals a local run's, entry for entry, at a small fraction of the values' bytes.
  void shapesThroughSsh_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::newRow("resnet18") << program("resnet18.pt2") << QStringLiteral("1x3x224x224");
    QTest::newRow("bert (transformers)") << program("bert.pt2") << program("bert.inputs.pt");
  }
  void shapesThroughSsh() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QFETCH(QString, model);
    QFETCH(QString, input);
    const QStringList args{QStringLiteral("shapes"), model, QStringLiteral("--json"), QStringLiteral("--input"), input};
    const auto local = cli(args);
    const auto remote = cli(args + QStringList{QStringLiteral("--device"), device()});
    QCOMPARE(local.exitCode, 0);
    QCOMPARE(remote.exitCode, 0);
    const QJsonObject l = local.json(), r = remote.json();
    QCOMPARE(l.value("source").toString(), QStringLiteral("run"));
    const QJsonArray lv = l.value("values").toArray(), rv = r.value("values").toArray();
    QVERIFY(lv.size() > 20);
    QCOMPARE(rv.size(), lv.size());
    for (qsizetype i = 0; i < lv.size(); ++i) QCOMPARE(rv[i].toObject(), lv[i].toObject());
    QVERIFY(r.value("device").toString().startsWith(QStringLiteral("graft-test:cpu")));
    const qint64 received = r.value("remote").toObject().value("bytes_received").toInteger();
    QVERIFY2(received > 0 && received < 400000, qPrintable(QString::number(received)));
    // A TorchScript model is not run node by node on a host: said, and nothing is sent.
    const auto ts = cli({QStringLiteral("shapes"), program("resnet18.pt"), QStringLiteral("--input"),
                         QStringLiteral("1x3x64x64"), QStringLiteral("--device"), device()});
    QCOMPARE(ts.exitCode, 2);
    QVERIFY2(ts.err.contains(QLatin1String("torch.export program (.pt2)")), qPrintable(ts.err));
  }

  // The History ledger with each revision on a host (replay --ledger --device): every revision's
  // verdict and error equal the local ledger's, and the host timed its forward.
  void ledgerThroughSsh() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    const QString model = program("resnet18.pt2");
    auto loaded = io::loadFile(model);
    QVERIFY(loaded.ok());
    edit::Session session(*loaded.document);
    const QString journal = dir_.filePath(QStringLiteral("ledger-session.json"));
    session.setJournalPath(journal);
    const auto library = rewrite::RuleLibrary::load();
    QVERIFY(session.applyRewrite({rewrite::Step::ofRule(*library.find(QStringLiteral("fold-conv-bn")))}).ok());
    QVERIFY(session.applyRewrite({rewrite::Step::ofPass(QStringLiteral("cse"))}).ok() || loaded.document->count() == 2);
    const QStringList args{QStringLiteral("replay"), model, journal, QStringLiteral("--ledger"),
                           QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--json")};
    const auto local = cli(args);
    // Every ssh start appends a line: one connection serves every revision's compare and profile.
    const QString starts = dir_.filePath(QStringLiteral("ledger-ssh-starts"));
    const QString wrapper = dir_.filePath(QStringLiteral("count-ssh.sh"));
    QFile script(wrapper);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(QStringLiteral("#!/bin/sh\necho start >> %1\nexec \"$@\"\n").arg(remote::shellQuote(starts)).toUtf8());
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const QByteArray saved = qgetenv("GRAFT_SSH_COMMAND");
    qputenv("GRAFT_SSH_COMMAND", remote::shellQuote(wrapper).toUtf8() + ' ' + saved);
    const auto remote = cli(args + QStringList{QStringLiteral("--device"), device()});
    qputenv("GRAFT_SSH_COMMAND", saved);
    QCOMPARE(local.exitCode, 0);
    QCOMPARE(remote.exitCode, 0);
    QFile counted(starts);
    QVERIFY(counted.open(QIODevice::ReadOnly));
    QCOMPARE(counted.readAll(), QByteArray("start\n"));
    const QJsonArray l = local.json().value("ledger").toArray(), r = remote.json().value("ledger").toArray();
    QVERIFY(l.size() >= 2);
    QCOMPARE(r.size(), l.size());
    for (qsizetype i = 0; i < l.size(); ++i) {
      const QJsonObject a = l[i].toObject(), b = r[i].toObject();
      QVERIFY2(b.value("ok").toBool(), qPrintable(b.value("error").toString()));
      QCOMPARE(b.value("pass").toBool(), a.value("pass").toBool());
      const double la = a.value("max_abs").toDouble(), ra = b.value("max_abs").toDouble();
      QVERIFY2(std::abs(la - ra) <= 1e-6 + 0.05 * la, qPrintable(QStringLiteral("%1 vs %2").arg(la).arg(ra)));
      QVERIFY(b.value("median_ms").toDouble() > 0);
      QCOMPARE(b.value("runs").toInt(), 2);
    }
    QVERIFY(l[1].toObject().value("max_abs").toDouble() > 0);  // the fold is not bit-identical
  }

  // The agent killed mid-run: exit 2, one line naming the host and what happened.
  void agentKilledMidRun() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QProcess p;
    p.start(qEnvironmentVariable("GRAFT_CLI"), {QStringLiteral("profile"), program("resnet18.pt2"), QStringLiteral("--runs"),
                                                QStringLiteral("100000"), QStringLiteral("--device"), device()});
    QByteArray err;
    qint64 pid = 0;
    QElapsedTimer t;
    t.start();
    static const QRegularExpression ready(QStringLiteral("agent ready: pid (\\d+)"));
    while (t.elapsed() < 120000 && p.state() != QProcess::NotRunning && !err.contains("profiling on")) {
      p.waitForReadyRead(200);
      err += p.readAllStandardError();
    }
    const auto m = ready.match(QString::fromUtf8(err));
    QVERIFY2(m.hasMatch() && err.contains("profiling on"), err.constData());
    pid = m.captured(1).toLongLong();
    QThread::msleep(1500);  // inside the runs
    QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
    QVERIFY(p.waitForFinished(60000));
    err += p.readAllStandardError();
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(err.contains("error: graft-test: the agent died during the profile"), err.constData());
  }

  // Graft killed mid-run: the connection ends, and the agent ends with it rather than finish a
  // run nobody waits for.
  void agentEndsWithTheConnection() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QProcess p;
    p.start(qEnvironmentVariable("GRAFT_CLI"), {QStringLiteral("profile"), program("bert.pt2"), QStringLiteral("--runs"),
                                                QStringLiteral("100000"), QStringLiteral("--device"), device()});
    QByteArray err;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 120000 && p.state() != QProcess::NotRunning && !err.contains("profiling on")) {
      p.waitForReadyRead(200);
      err += p.readAllStandardError();
    }
    static const QRegularExpression ready(QStringLiteral("agent ready: pid (\\d+)"));
    const auto m = ready.match(QString::fromUtf8(err));
    QVERIFY2(m.hasMatch() && err.contains("profiling on"), err.constData());
    const QString status = QStringLiteral("/proc/%1/status").arg(m.captured(1));
    QVERIFY(QFileInfo::exists(status));
    p.kill();
    p.waitForFinished();
    const auto gone = [&] {
      QFile f(status);
      return !f.open(QIODevice::ReadOnly) || f.readAll().contains("State:\tZ");
    };
    t.restart();
    while (!gone() && t.elapsed() < 15000) QThread::msleep(100);
    QVERIFY2(gone(), "the agent outlived its connection");
  }

  // A Python without torch on the host: "no torch", naming the host (the given Python, and the
  // one found on the PATH).
  void hostWithoutTorch() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    if (ranOk(QStringLiteral("/usr/bin/python3"), {"-c", "import torch"})) QSKIP("/usr/bin/python3 has torch here");
    for (const QString& dev : {QStringLiteral("ssh://graft-test/cpu?python=/usr/bin/python3"), QStringLiteral("ssh://graft-test/cpu")}) {
      const auto r = graft::test::runCli({QStringLiteral("compare"), program("resnet18.pt2"), QStringLiteral("--device-b"), dev});
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains("error: B: graft-test: no torch"), r.err.constData());
    }
  }

  // No CUDA on the host (this machine's venv has a CUDA build but no GPU, or a CPU build).
  void hostWithoutCuda() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    if (ranOk(venvPython(), {"-c", "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)"})) QSKIP("this host has CUDA");
    const auto r = graft::test::runCli({QStringLiteral("compare"), program("resnet18.pt2"), QStringLiteral("--device-b"), device("cuda:0")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("error: B: graft-test: no CUDA here"), r.err.constData());
  }

  // The host runs only what this machine would: a B whose forward saves a file is refused
  // without --trust before any connection, and nothing is written (tests/python/make_hostile_files.py).
  void untrustedModelIsRefusedBeforeConnecting() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    const QString hostile = dir_.filePath(QStringLiteral("hostile"));
    QDir().mkpath(hostile);
    const auto made = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_hostile_files.py"),
                                             {hostile});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    const auto r = graft::test::runCli({QStringLiteral("compare"), hostile + QStringLiteral("/forward_saves.pt"),
                                        hostile + QStringLiteral("/forward_saves.pt"), QStringLiteral("--input"), QStringLiteral("2x8"),
                                        QStringLiteral("--device-b"), device()});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("error: B: ") && r.err.contains("aten::save"), r.err.constData());
    QVERIFY2(!r.err.contains("connecting"), r.err.constData());
    QVERIFY(!QFileInfo::exists(hostile + QStringLiteral("/MARKER")));
  }

  // A hostile host (tests/python/fake_host.py standing in for ssh) answers the protocol badly:
  // each job ends with exit 2 and one line naming the host, never a crash, with the host's
  // escape bytes shown as text and memory bounded (the flood and the announced sizes are GBs).
  void fakeHostBadReplies_data() {
    QTest::addColumn<QString>("hostCase");
    QTest::addColumn<QString>("message");
    QTest::newRow("offset 2^63-8, 32 bytes") << "huge_offset" << "error: B: fake: the agent sent a tensor Graft cannot read";
    QTest::newRow("negative dimension") << "bad_shape" << "error: B: fake: the agent sent a tensor whose size does not match its shape";
    QTest::newRow("element count past int64") << "huge_numel" << "error: B: fake: the agent sent a tensor whose size does not match its shape";
    QTest::newRow("values 200 deep") << "deep_values" << "error: B: fake: the agent sent values nested deeper than 64";
    QTest::newRow("values 100000 deep") << "deeper_values" << "error: B: fake: the agent sent something unreadable during the run";
    QTest::newRow("256 MiB of stderr, no answer") << "flood_stderr" << "error: B: fake: the agent could not start (exit 1): flood flood";
    QTest::newRow("hello announcing 10^10 bytes") << "huge_reply" << "error: B: fake: reply too large during hello";
    QTest::newRow("run announcing 2^40 bytes") << "huge_run_reply" << "error: B: fake: reply too large during the run";
    QTest::newRow("a line that never ends") << "long_line" << "error: B: fake: reply too large during hello: a header line";
    QTest::newRow("escapes on stderr") << "escape_stderr" << "fake: the agent could not start (exit 1): graft-agent: \\x1b]0;owned\\x07\\x1b[2J";
    QTest::newRow("escapes in a message") << "escape_reply" << "error: B: fake: bad news \\x1b]0;owned\\x07\\x1b[2J\\x1b[31m\\x9b";
  }
  void fakeHostBadReplies() {
    QFETCH(QString, hostCase);
    QFETCH(QString, message);
    const QByteArray saved = qgetenv("GRAFT_SSH_COMMAND");
    qputenv("GRAFT_SSH_COMMAND", (remote::shellQuote(venvPython()) + QStringLiteral(" ") +
                                  qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/fake_host.py ") + hostCase)
                                     .toUtf8());
    const QString pair = dir_.filePath(QStringLiteral("pair/"));
    const auto r = graft::test::runMeasured({QStringLiteral("compare"), pair + "mlp_a.pt2", pair + "mlp_b.pt2", QStringLiteral("--device-b"),
                                             QStringLiteral("ssh://fake/cpu"), QStringLiteral("--timeout"), QStringLiteral("120")});
    qputenv("GRAFT_SSH_COMMAND", saved);
    QCOMPARE(r.signal, 0);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.right(2000).constData());
    QVERIFY2(!r.err.contains('\x1b') && !r.err.contains('\x07'), "a host's escape bytes reached stderr raw");
    QVERIFY2(r.peakKiB < 1500 * 1024, qPrintable(QStringLiteral("peak %1 KiB").arg(r.peakKiB)));
    QVERIFY2(r.ms < 60000, qPrintable(QStringLiteral("%1 ms").arg(r.ms)));
  }

  // A model that prints a well-formed agent reply (aten::_print in a .pt2, print() in TorchScript)
  // cannot forge a verdict: the agent's protocol has left fd 1 before any model runs, so B stays
  // DIFFERENT from A on the host, and what B printed is shown as its output. Locally, its prints
  // go to stderr, never into --json stdout.
  void modelPrintsCannotForgeAVerdict() {
    const QString dir = dir_.filePath(QStringLiteral("printing/"));
    for (const QString& b : {QStringLiteral("forger.pt2"), QStringLiteral("forger.pt")}) {
      const QStringList args{QStringLiteral("compare"), dir + "steady.pt2", dir + b, QStringLiteral("--input"), QStringLiteral("2x8"),
                             QStringLiteral("--json")};
      const auto local = cli(args);
      QCOMPARE(local.exitCode, 1);
      QCOMPARE(local.json().value("verdict").toString(), QStringLiteral("outputs_differ"));
      QVERIFY2(!local.out.contains("AAAAAAAAAAAAAAAA"), local.out.left(400).constData());
      QVERIFY2(local.err.contains("AAAAAAAAAAAAAAAA"), local.err.constData());
      if (!skip_.isEmpty()) continue;
      const auto remote = cli(args + QStringList{QStringLiteral("--device-b"), device()});
      QCOMPARE(remote.exitCode, 1);
      QCOMPARE(remote.json().value("verdict").toString(), QStringLiteral("outputs_differ"));
      QVERIFY2(remote.err.contains("graft-test: the model printed: {\"ok\":true,\"outputs\""), remote.err.constData());
    }
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
  }

  // A model that prints in a loop, profiled on the host and compared here: its output is kept up
  // to a bound (the rest counted), escapes shown as text, and the job ends normally.
  void chattyModelIsBounded() {
    const QString dir = dir_.filePath(QStringLiteral("printing/"));
    const auto local = graft::test::runMeasured({QStringLiteral("compare"), dir + "chatty.pt", dir + "chatty.pt",
                                                 QStringLiteral("--input"), QStringLiteral("2x8"), QStringLiteral("--json")});
    QCOMPARE(local.signal, 0);
    QCOMPARE(local.exitCode, 0);
    QVERIFY2(local.err.contains("the model printed more; the rest is not shown"), local.err.right(500).constData());
    QVERIFY2(local.err.size() < 200 * 1024, qPrintable(QString::number(local.err.size())));
    QVERIFY(!local.err.contains('\x1b') && local.err.contains("\\x1b[2J"));
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    for (const QString& model : {QStringLiteral("chatty.pt2"), QStringLiteral("chatty.pt")}) {
      const auto r = graft::test::runMeasured({QStringLiteral("profile"), dir + model, QStringLiteral("--input"), QStringLiteral("2x8"),
                                               QStringLiteral("--runs"), QStringLiteral("3"), QStringLiteral("--warmup"),
                                               QStringLiteral("1"), QStringLiteral("--device"), device()});
      QCOMPARE(r.signal, 0);
      QVERIFY2(r.exitCode == 0, r.err.right(1500).constData());
      QVERIFY2(r.err.contains("graft-test: the model printed: \\x1b[2J\\x1b]0;owned\\x07"), r.err.right(1500).constData());
      QVERIFY2(r.err.contains("more lines"), r.err.right(1500).constData());
      QVERIFY(!r.err.contains('\x1b'));
    }
  }

  // --timeout ends the remote agent with its process group: the agent leads its own group, and
  // once graft-cli has stopped, the agent is gone.
  void timeoutEndsTheRemoteGroup() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QProcess p;
    p.start(qEnvironmentVariable("GRAFT_CLI"), {QStringLiteral("profile"), program("resnet18.pt2"), QStringLiteral("--runs"),
                                                QStringLiteral("100000"), QStringLiteral("--timeout"), QStringLiteral("20"),
                                                QStringLiteral("--device"), device()});
    QByteArray err;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 120000 && p.state() != QProcess::NotRunning && !err.contains("profiling on")) {
      p.waitForReadyRead(200);
      err += p.readAllStandardError();
    }
    static const QRegularExpression ready(QStringLiteral("agent ready: pid (\\d+)"));
    const auto m = ready.match(QString::fromUtf8(err));
    QVERIFY2(m.hasMatch() && err.contains("profiling on"), err.constData());
    const QString pid = m.captured(1);
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    QVERIFY(stat.open(QIODevice::ReadOnly));
    const QList<QByteArray> fields = stat.readAll().split(')').last().trimmed().split(' ');
    QCOMPARE(QString::fromLatin1(fields.value(2)), pid);  // its process group is its own
    QVERIFY(p.waitForFinished(60000));
    err += p.readAllStandardError();
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(err.contains("(--timeout)"), err.constData());
    const auto gone = [&] {
      QFile f(QStringLiteral("/proc/%1/status").arg(pid));
      return !f.open(QIODevice::ReadOnly) || f.readAll().contains("State:\tZ");
    };
    t.restart();
    while (!gone() && t.elapsed() < 15000) QThread::msleep(100);
    QVERIFY2(gone(), "the agent outlived graft-cli's --timeout");
  }

  // ssh itself fails (nothing listens): "ssh failed" and ssh's own words, naming the host.
  void sshRefused() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    const auto r = graft::test::runCli({QStringLiteral("profile"), program("resnet18.pt2"), QStringLiteral("--device"),
                                        QStringLiteral("ssh://graft-closed/cpu")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("error: graft-closed: ssh failed: ") && r.err.contains("refused"), r.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestRemote)
#include "tst_remote.moc"
