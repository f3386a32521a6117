// graft-cli report: one self-contained HTML page (resnet18 against its fold-conv-bn rewrite),
// with no script and no outside URL, which headless Chromium renders offline: the diagrams'
// SVG is drawn (the removed batch_norms' red outlines are on the screenshot) and no request
// other than the file itself is made.
#include "core/model/document.h"
#include "gui_support.h"
#include "core/report/verdict_line.h"
#include "ui/compare_dock.h"
#include "ui/rewrite/rewrite_dock.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtCore/QUrl>
#include <QtGui/QImage>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

using graft::test::runCli;
using graft::test::testdata;

namespace {

// Runs headless Chromium on `url` with the network pointed at a closed port; returns stdout.
QByteArray chromium(const QString& exe, const QStringList& extra, const QString& url, const QString& profile, int* exitCode) {
  QProcess p;
  p.setProcessChannelMode(QProcess::SeparateChannels);
  QStringList args{QStringLiteral("--headless"), QStringLiteral("--disable-gpu"), QStringLiteral("--no-sandbox"),
                   QStringLiteral("--proxy-server=127.0.0.1:9"), QStringLiteral("--no-first-run"),
                   QStringLiteral("--disable-background-networking"), QStringLiteral("--disable-component-update"),
                   QStringLiteral("--user-data-dir=") + profile};
  args << extra << url;
  p.start(exe, args);
  if (!p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
  }
  *exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  return p.readAllStandardOutput();
}

// URLs requested on behalf of a document (not by the browser itself), from a Chromium net log.
QStringList pageRequests(const QString& netLog) {
  QFile log(netLog);
  if (!log.open(QIODevice::ReadOnly)) return {QStringLiteral("(no net log at %1)").arg(netLog)};
  const QJsonObject j = QJsonDocument::fromJson(log.readAll()).object();
  const int startJob = j.value(QStringLiteral("constants")).toObject().value(QStringLiteral("logEventTypes")).toObject()
                           .value(QStringLiteral("URL_REQUEST_START_JOB")).toInt(-1);
  if (startJob < 0) return {QStringLiteral("(net log without event types)")};
  QStringList urls;
  for (const auto& e : j.value(QStringLiteral("events")).toArray()) {
    const auto o = e.toObject();
    const auto params = o.value(QStringLiteral("params")).toObject();
    if (o.value(QStringLiteral("type")).toInt() != startJob || !params.contains(QStringLiteral("url"))) continue;
    if (params.value(QStringLiteral("initiator")).toString() == QLatin1String("not an origin")) continue;
    const QString url = params.value(QStringLiteral("url")).toString();
    if (!url.startsWith(QLatin1String("file:"))) urls << url;
  }
  return urls;
}

}  // namespace

class TstReport : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const QString folded = dir_.filePath(QStringLiteral("folded.pt"));
    const auto rw = runCli({QStringLiteral("rewrite"), testdata(QStringLiteral("resnet18.pt")), QStringLiteral("--rule"),
                            QStringLiteral("fold-conv-bn"), QStringLiteral("-o"), folded});
    QVERIFY2(rw.exitCode == 0, rw.err.constData());
    html_ = dir_.filePath(QStringLiteral("report.html"));
    const auto r = runCli({QStringLiteral("report"), testdata(QStringLiteral("resnet18.pt")), QStringLiteral("--against"), folded,
                           QStringLiteral("--input"), QStringLiteral("1x3x224x224"), QStringLiteral("--runs"), QStringLiteral("2"),
                           QStringLiteral("--html"), html_, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    summary_ = r.json();
  }

  void holdsTheResults() {
    QCOMPARE(summary_.value(QStringLiteral("diagrams")).toInt(), 2);
    const auto diff = summary_.value(QStringLiteral("diff")).toObject();
    QCOMPARE(diff.value(QStringLiteral("removed")).toInt(), 20);
    QCOMPARE(diff.value(QStringLiteral("folded")).toInt(), 20);
    QCOMPARE(diff.value(QStringLiteral("changed")).toInt(), 20);
    QVERIFY(summary_.value(QStringLiteral("compare")).isBool());
    QVERIFY(summary_.value(QStringLiteral("profile")).toBool());
    QVERIFY(summary_.value(QStringLiteral("speedup")).toDouble() > 0);
    QFile f(html_);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString page = QString::fromUtf8(f.readAll());
    QCOMPARE(page.count(QStringLiteral("<svg")), 3);  // two diagrams and the profile chart
    for (const char* part : {"Revision history", "First divergence", "Speedup ×", "folded into aten::_convolution", "layer2.0.bn1"})
      QVERIFY2(page.contains(QString::fromUtf8(part)), part);
    // Self-contained: no script, no font, nothing fetched. Namespace names (xmlns) are not fetched.
    QVERIFY(!page.contains(QStringLiteral("<script"), Qt::CaseInsensitive));
    QVERIFY(!page.contains(QStringLiteral("@import")) && !page.contains(QStringLiteral("@font-face")));
    QString stripped = page;
    stripped.remove(QRegularExpression(QStringLiteral("xmlns(:\\w+)?=\"[^\"]*\"")));
    QVERIFY(!stripped.contains(QRegularExpression(QStringLiteral("(src|href)\\s*=|url\\s*\\("), QRegularExpression::CaseInsensitiveOption)));
    QVERIFY(!stripped.contains(QRegularExpression(QStringLiteral("(https?|ftp|wss?):"), QRegularExpression::CaseInsensitiveOption)));
  }

  void refusesToOverwriteItsInput() {
    const QString model = dir_.filePath(QStringLiteral("folded.pt"));
    const QByteArray before = [&] { QFile f(model); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    const auto r = runCli({QStringLiteral("report"), model, QStringLiteral("--no-profile"), QStringLiteral("--html"), model});
    QCOMPARE(r.exitCode, 2);
    QFile f(model);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), before);
  }

  void rendersOfflineInChromium() {
    const QString exe = QStandardPaths::findExecutable(QStringLiteral("chromium"));
    if (exe.isEmpty()) QSKIP("chromium is not installed (Debian package `chromium`, packaging/install-deps.sh): the page was not opened in a browser");
    const QString url = QUrl::fromLocalFile(html_).toString();
    const QString netLog = dir_.filePath(QStringLiteral("net-log.json"));
    int code = 0;
    const QByteArray dom = chromium(exe, {QStringLiteral("--log-net-log=") + netLog, QStringLiteral("--dump-dom")}, url,
                                    dir_.filePath(QStringLiteral("profile1")), &code);
    QCOMPARE(code, 0);
    // The browser parsed the inline SVG into elements (the diagrams' boxes and labels).
    QCOMPARE(dom.count("<svg"), 3);
    QVERIFY(dom.count("<text") > 100);
    // No request left the page: the net log's requests made for a document (initiator set) are
    // file:// only. Chromium's own background requests (time, updates; initiator "not an origin")
    // are the browser's, not the page's, and are never answered here anyway.
    const QStringList fromPage = pageRequests(netLog);
    QVERIFY2(fromPage.isEmpty(), qPrintable(fromPage.join(QStringLiteral(", "))));
    // The check sees a page that does fetch something.
    QFile control(dir_.filePath(QStringLiteral("control.html")));
    QVERIFY(control.open(QIODevice::WriteOnly));
    control.write("<html><body><img src=\"http://192.0.2.1/pixel.png\"><p>control</p></body></html>");
    control.close();
    const QString controlLog = dir_.filePath(QStringLiteral("control-net-log.json"));
    chromium(exe, {QStringLiteral("--log-net-log=") + controlLog, QStringLiteral("--dump-dom")},
             QUrl::fromLocalFile(control.fileName()).toString(), dir_.filePath(QStringLiteral("profile3")), &code);
    QCOMPARE(pageRequests(controlLog), QStringList{QStringLiteral("http://192.0.2.1/pixel.png")});
    // The screenshot shows the SVG drawn: the removed batch_norms' red outlines are on it.
    const QString shot = qEnvironmentVariable("GRAFT_REPORT_SCREENSHOT", dir_.filePath(QStringLiteral("report.png")));
    chromium(exe, {QStringLiteral("--screenshot=") + shot, QStringLiteral("--window-size=1366,2400"), QStringLiteral("--hide-scrollbars")},
             url, dir_.filePath(QStringLiteral("profile2")), &code);
    QImage image(shot);
    QVERIFY2(!image.isNull(), "no screenshot");
    int red = 0, blue = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const QColor c = image.pixelColor(x, y);
        if (std::abs(c.red() - 0xd3) < 25 && std::abs(c.green() - 0x2f) < 25 && std::abs(c.blue() - 0x2f) < 25) ++red;
        if (std::abs(c.red() - 0x15) < 25 && std::abs(c.green() - 0x65) < 25 && std::abs(c.blue() - 0xc0) < 25) ++blue;
      }
    QVERIFY2(red > 400 && blue > 400, qPrintable(QStringLiteral("red %1, blue %2 pixels").arg(red).arg(blue)));
  }

  // File > Export Report: the open document's original beside its current revision, the history
  // and the differences by node id; no compare or profile has been run, and the page says so.
  void exportFromTheWindow() {
    qputenv("GRAFT_SESSION_DIR", dir_.filePath(QStringLiteral("sessions")).toUtf8());
    graft::ui::MainWindow w;
    QVERIFY(graft::test::showModel(w, QStringLiteral("resnet18.pt")));
    w.findChild<graft::ui::RewriteDock*>()->applyRules({QStringLiteral("fold-conv-bn")});
    QVERIFY(graft::test::waitLayout(w.canvas()));
    const QString page = dir_.filePath(QStringLiteral("window.html"));
    QVERIFY(w.parts().exports->exportReport(page));
    QFile f(page);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(f.readAll());
    QCOMPARE(html.count(QStringLiteral("<svg")), 2);
    QVERIFY(html.contains(QStringLiteral("<b>0</b> added, <b>20</b> removed (20 folded), <b>20</b> changed")));
    QVERIFY(html.contains(QStringLiteral("No compare has been run")) && html.contains(QStringLiteral("No profile has been run")));
    QCOMPARE(html.count(QStringLiteral("<tr><td class=\"n\">")) + html.count(QStringLiteral("<tr style=\"font-weight:bold\"><td class=\"n\">")),
             w.controller()->document()->count());
    QVERIFY(!html.contains(QStringLiteral("<script")));
  }

  // The report's Compare section gives the verdict in the Compare dock's words, with its reason.
  void exportCarriesTheVerdict() {
    qputenv("GRAFT_SESSION_DIR", dir_.filePath(QStringLiteral("sessions")).toUtf8());
    graft::ui::MainWindow w;
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    w.findChild<graft::ui::RewriteDock*>()->applyRules({QStringLiteral("fold-conv-bn")});
    auto* compare = w.compareDock();
    QSignalSpy done(compare, &graft::ui::CompareDock::finished);
    compare->start();
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
    const auto verdict = graft::core::report::verdictLine(compare->summary());
    QVERIFY(verdict.kind != graft::core::report::VerdictLine::Kind::None);
    QVERIFY2(compare->verdictText().startsWith(verdict.text()), qPrintable(compare->verdictText()));
    const QString page = dir_.filePath(QStringLiteral("verdict.html"));
    QVERIFY(w.parts().exports->exportReport(page));
    QFile f(page);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(f.readAll());
    const QString word = verdict.word.left(1).toUpper() + verdict.word.mid(1);
    QVERIFY2(html.contains(QStringLiteral("verdict\"><b>%1</b>").arg(word.toHtmlEscaped())), qPrintable(word));
    if (!verdict.reason.isEmpty()) QVERIFY2(html.contains(verdict.reason.toHtmlEscaped()), qPrintable(verdict.reason));
    QVERIFY(!html.contains(QStringLiteral("No compare has been run")));
  }

 private:
  QTemporaryDir dir_;
  QString html_;
  QJsonObject summary_;
};

QTEST_MAIN(TstReport)
#include "tst_report.moc"
