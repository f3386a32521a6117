// A remote compare's time and bytes beside the local one, on a throwaway sshd on 127.0.0.1
// (tests/loopback_sshd.h; the "remote" Python is the venv's): graft-cli compare of one model with
// B on this machine, then with B on ssh://graft-test/cpu twice (the first run sends the agent
// and the model, the second finds them cached), as a user runs it. Prints wall times, the
// remote/local ratio, and the bytes and round trips from the JSON's `remote` key. On a loopback
// host the ratio is the cost of the connection itself (ssh, the host's Python and torch, loading
// the model there): what a LAN GPU server adds on top of its own speed.
// Usage: bench_remote TESTDATA_DIR [MODEL.pt2 ...]   (default: pt2/resnet18.pt2 pt2/bert.pt2, at
// float32 as saved and B at float16)
#include "tests/loopback_sshd.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <cstdio>

namespace {

struct Run {
  bool ok = false;
  double seconds = 0;
  QJsonObject json;
  QString error;
};

Run compare(const QStringList& args) {
  QProcess p;
  QElapsedTimer clock;
  clock.start();
  p.start(QStringLiteral(GRAFT_CLI), QStringList{QStringLiteral("compare")} + args +
                                         QStringList{QStringLiteral("--json"), QStringLiteral("--threads"),
                                                     QStringLiteral("2")});
  Run r;
  if (!p.waitForFinished(600000)) {
    r.error = QStringLiteral("did not finish");
    return r;
  }
  r.seconds = clock.elapsed() / 1000.0;
  r.json = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
  r.ok = (p.exitCode() == 0 || p.exitCode() == 1) && !r.json.isEmpty();
  if (!r.ok) r.error = QString::fromUtf8(p.readAllStandardError()).trimmed().left(300);
  return r;
}

QString bytes(double n) {
  if (n >= 1e6) return QStringLiteral("%1 MB").arg(n / 1e6, 0, 'f', 1);
  if (n >= 1e3) return QStringLiteral("%1 KB").arg(n / 1e3, 0, 'f', 1);
  return QStringLiteral("%1 B").arg(n);
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (qEnvironmentVariableIsEmpty("GRAFT_SOURCE_DIR")) qputenv("GRAFT_SOURCE_DIR", GRAFT_SOURCE_DIR);
  const QStringList args = app.arguments().mid(1);
  if (args.isEmpty()) {
    std::printf("usage: bench_remote TESTDATA_DIR [MODEL.pt2 ...]\n");
    return 2;
  }
  if (const QString why = graft::test::LoopbackSshd::unavailable(); !why.isEmpty()) {
    std::printf("bench_remote: skipped: %s\n", qPrintable(why));
    return 0;
  }
  graft::test::LoopbackSshd sshd;
  QString why;
  if (!sshd.start(&why)) {
    std::printf("bench_remote: sshd did not start: %s\n", qPrintable(why));
    return 1;
  }
  QStringList models = args.mid(1);
  if (models.isEmpty()) models = {QStringLiteral("pt2/resnet18.pt2"), QStringLiteral("pt2/bert.pt2")};
  const QString host = QStringLiteral("ssh://graft-test/cpu?python=") + graft::test::venvPython();
  std::printf("%-22s %-10s %9s %12s %12s %7s %11s %11s %6s\n", "model", "B at", "local s", "remote 1st s",
              "remote s", "ratio", "sent", "received", "trips");
  int failures = 0;
  for (const QString& name : models) {
    const QString model = args[0] + QLatin1Char('/') + name;
    for (const QStringList& precision : {QStringList{}, QStringList{QStringLiteral("--dtype-b"), QStringLiteral("float16")}}) {
      const QStringList common = QStringList{model} + precision;
      const Run local = compare(common);
      const QStringList remoteArgs = common + QStringList{QStringLiteral("--device-b"), host};
      const Run first = compare(remoteArgs);
      const Run cached = compare(remoteArgs);
      if (!local.ok || !first.ok || !cached.ok) {
        std::printf("%-22s failed: %s\n", qPrintable(name),
                    qPrintable(!local.ok ? local.error : !first.ok ? first.error : cached.error));
        ++failures;
        continue;
      }
      const QJsonObject traffic = cached.json.value(QStringLiteral("remote")).toObject();
      std::printf("%-22s %-10s %9.2f %12.2f %12.2f %6.2fx %11s %11s %6d\n", qPrintable(name),
                  precision.isEmpty() ? "as saved" : "float16", local.seconds, first.seconds, cached.seconds,
                  cached.seconds / local.seconds,
                  qPrintable(bytes(traffic.value(QStringLiteral("bytes_sent")).toDouble())),
                  qPrintable(bytes(traffic.value(QStringLiteral("bytes_received")).toDouble())),
                  traffic.value(QStringLiteral("round_trips")).toInt());
      if (local.json.value(QStringLiteral("verdict")) != cached.json.value(QStringLiteral("verdict"))) {
        std::printf("  the verdicts differ: local %s, remote %s\n",
                    qPrintable(local.json.value(QStringLiteral("verdict")).toString()),
                    qPrintable(cached.json.value(QStringLiteral("verdict")).toString()));
        ++failures;
      }
    }
  }
  std::printf("(sent/received/trips: the cached remote run; ratio: cached remote wall time over local)\n");
  return failures == 0 ? 0 : 1;
}
