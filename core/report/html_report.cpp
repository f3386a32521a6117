#include "core/report/html_report.h"

#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/report/info_report.h"
#include "core/report/verdict_line.h"
#include "core/report/versions.h"

#include <QtCore/QDateTime>
#include <QtCore/QJsonArray>
#include <QtCore/QHash>
#include <algorithm>
#include <cmath>

namespace graft::core::report {

namespace {

QString esc(const QString& s) { return s.toHtmlEscaped(); }

QString num(double v, int precision = 3) {
  if (!std::isfinite(v)) return QStringLiteral("—");
  return QString::number(v, 'g', precision);
}

QString ms(double v) { return QString::number(v, 'f', v < 1 ? 3 : 2); }

// System fonts only: nothing is fetched.
const char* kStyle = R"(
body { font-family: sans-serif; margin: 24px; color: #1d2430; max-width: 1400px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; border-bottom: 1px solid #d5dce6; padding-bottom: 4px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #d5dce6; padding: 3px 8px; text-align: left; }
th { background: #eef2f7; } td.n { text-align: right; font-family: monospace; }
.muted { color: #5b6573; font-size: 12px; } .bad { color: #c62828; font-weight: bold; }
.good { color: #2e7d32; font-weight: bold; }
.diagrams { display: flex; gap: 16px; align-items: flex-start; }
.diagrams figure { margin: 0; flex: 1; overflow: auto; max-height: 900px; border: 1px solid #d5dce6; }
.diagrams figcaption { font-weight: bold; padding: 4px 8px; background: #eef2f7; }
.diagrams svg { display: block; max-width: 100%; height: auto; }
.legend span.sw {
  display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px;
  vertical-align: middle; border: 1px solid #333;
}
.speedup { font-size: 20px; font-weight: bold; }
)";

void section(QString& h, const QString& title) { h += QStringLiteral("<h2>%1</h2>\n").arg(esc(title)); }

QString diffRow(const QString& kind, const edit::DiffNode& d, const QString& note) {
  return QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td></tr>\n")
      .arg(kind, esc(d.op), esc(d.modulePath), esc(note));
}

}  // namespace

QByteArray profileChartSvg(const profile::Profile& before, const profile::Profile* after, int kinds) {
  // The slowest kinds of the first profile, with the second's time for the same kind beside it.
  QHash<QString, double> afterMs;
  if (after)
    for (const auto& k : after->byOp) afterMs.insert(k.op, k.totalMs.median);
  QVector<QPair<QString, double>> rows;
  for (const auto& k : before.byOp) rows.append({k.op, k.totalMs.median});
  std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  if (rows.size() > kinds) rows.resize(kinds);
  double max = 1e-9;
  for (const auto& [op, v] : rows) max = std::max({max, v, afterMs.value(op)});
  const int labelW = 200, barW = 420, rowH = after ? 30 : 18, top = 24;
  const int height = top + int(rows.size()) * rowH + 10;
  QString s = QStringLiteral(
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\" "
                  "font-family=\"sans-serif\" font-size=\"11\">\n")
                  .arg(labelW + barW + 90)
                  .arg(height);
  s += QStringLiteral(
           "<rect x=\"%1\" y=\"4\" width=\"10\" height=\"10\" fill=\"#7b8fb0\"/><text x=\"%2\" y=\"13\">%3</text>\n")
           .arg(labelW)
           .arg(labelW + 14)
           .arg(after ? QStringLiteral("before") : QStringLiteral("median ms per run"));
  if (after)
    s += QStringLiteral(
             "<rect x=\"%1\" y=\"4\" width=\"10\" height=\"10\" fill=\"#2e7d32\"/><text x=\"%2\" "
             "y=\"13\">after</text>\n")
             .arg(labelW + 70)
             .arg(labelW + 84);
  for (int i = 0; i < rows.size(); ++i) {
    const auto& [op, v] = rows[i];
    const int y = top + i * rowH;
    s += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"end\">%3</text>\n")
             .arg(labelW - 6)
             .arg(y + 11)
             .arg(esc(op));
    s += QStringLiteral("<rect class=\"bar\" x=\"%1\" y=\"%2\" width=\"%3\" height=\"12\" fill=\"#7b8fb0\"/>"
                        "<text x=\"%4\" y=\"%5\">%6 ms</text>\n")
             .arg(labelW).arg(y).arg(std::max(1.0, v / max * barW), 0, 'f', 1)
             .arg(labelW + std::max(1.0, v / max * barW) + 4, 0, 'f', 1).arg(y + 10).arg(ms(v));
    if (after) {
      const double w = afterMs.value(op);
      s += QStringLiteral("<rect class=\"bar\" x=\"%1\" y=\"%2\" width=\"%3\" height=\"12\" fill=\"#2e7d32\"/>"
                          "<text x=\"%4\" y=\"%5\">%6 ms</text>\n")
               .arg(labelW).arg(y + 13).arg(std::max(1.0, w / max * barW), 0, 'f', 1)
               .arg(labelW + std::max(1.0, w / max * barW) + 4, 0, 'f', 1).arg(y + 23).arg(ms(w));
    }
  }
  s += QStringLiteral("</svg>\n");
  return s.toUtf8();
}

QVector<QPair<QString, QString>> modelFacts(const model::Document& document) {
  const QJsonObject info = infoReport(document);
  QVector<QPair<QString, QString>> facts;
  const auto text = [&](const char* key) { return info.value(QLatin1String(key)).toVariant().toString(); };
  const auto list = [&](const char* key) {
    QStringList items;
    for (const auto& v : info.value(QLatin1String(key)).toArray())
      items << (v.isObject() ? QStringLiteral("%1 : %2").arg(v.toObject().value(QStringLiteral("name")).toString(),
                                                            v.toObject().value(QStringLiteral("type")).toString())
                             : v.toVariant().toString());
    return items.join(QStringLiteral(", "));
  };
  facts.append(
      {QStringLiteral("file"), document.sourcePath().isEmpty() ? document.displayName() : document.sourcePath()});
  facts.append({QStringLiteral("format"), text("format")});
  facts.append({QStringLiteral("ops"), text("ops")});
  facts.append({QStringLiteral("TorchScript nodes"), text("jit_nodes")});
  facts.append({QStringLiteral("modules"), text("groups")});
  facts.append({QStringLiteral("inputs"), list("inputs")});
  facts.append({QStringLiteral("outputs"), list("outputs")});
  facts.append({QStringLiteral("frozen"), text("frozen")});
  QStringList repeats;
  for (const auto& v : info.value(QStringLiteral("repeats")).toArray()) {
    const auto o = v.toObject();
    const auto modules = o.value(QStringLiteral("modules")).toArray();
    repeats << QStringLiteral("%1–%2 ×%3")
                   .arg(modules.first().toString(), modules.last().toString())
                   .arg(o.value(QStringLiteral("count")).toInt());
  }
  facts.append({QStringLiteral("repeated blocks"),
                repeats.isEmpty() ? QStringLiteral("none") : repeats.join(QStringLiteral("; "))});
  QVector<QPair<int, QString>> ops;
  const auto histogram = info.value(QStringLiteral("op_histogram")).toObject();
  for (auto it = histogram.begin(); it != histogram.end(); ++it) ops.append({it.value().toInt(), it.key()});
  std::sort(ops.begin(), ops.end(), [](const auto& x, const auto& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  });
  QStringList top;
  for (int i = 0; i < ops.size() && i < 8; ++i) top << QStringLiteral("%1 ×%2").arg(ops[i].second).arg(ops[i].first);
  facts.append({QStringLiteral("most frequent ops"), top.join(QStringLiteral(", "))});
  return facts;
}

QVector<HtmlReport::Revision> revisionHistory(const model::Document& document) {
  QVector<HtmlReport::Revision> rows;
  for (int i = 0; i < document.count(); ++i)
    rows.append({i, document.parentOf(i), document.revision(i)->name(),
                 model::GraphView::build(*document.revision(i)).opCount(), i == document.currentIndex()});
  return rows;
}

HtmlReport assembleReport(const model::Document& a, const model::Revision& revA, const model::Document* b,
                          const model::Revision* revB, const QString& captionA, const QString& captionB) {
  HtmlReport r;
  r.title = b ? QStringLiteral("%1 vs %2").arg(a.displayName(), b->displayName()) : a.displayName();
  const auto v = versions();
  r.generator = QStringLiteral("Graft %1, libtorch %2").arg(v.graft, v.torch);
  r.facts = modelFacts(a);
  r.history = revisionHistory(a);
  if (revB && revB != &revA) {
    r.diff = edit::diffDocuments(a, revA, b ? *b : a, *revB);
    r.diffCaption = QStringLiteral("%1 → %2").arg(captionA, captionB);
  }
  return r;
}

QByteArray htmlReport(const HtmlReport& r) {
  QString h;
  h += QStringLiteral(
           "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%1 — Graft report</title>\n"
           "<style>%2</style></head><body>\n")
           .arg(esc(r.title), QString::fromUtf8(kStyle));
  h += QStringLiteral("<h1>%1</h1>\n<p class=\"muted\">Graft report · %2 · %3</p>\n")
           .arg(esc(r.title), esc(QDateTime::currentDateTimeUtc().toString(Qt::ISODate)), esc(r.generator));

  section(h, QStringLiteral("Model"));
  h += QStringLiteral("<table>\n");
  for (const auto& [k, v] : r.facts) h += QStringLiteral("<tr><th>%1</th><td>%2</td></tr>\n").arg(esc(k), esc(v));
  h += QStringLiteral("</table>\n");

  section(h, QStringLiteral("Diagram"));
  if (!r.legend.isEmpty()) {
    h += QStringLiteral("<p class=\"legend\">");
    for (const auto& [colour, what] : r.legend)
      h += QStringLiteral("<span class=\"sw\" style=\"background:%1\"></span>%2").arg(esc(colour), esc(what));
    h += QStringLiteral("</p>\n");
  }
  h += QStringLiteral("<div class=\"diagrams\">\n");
  for (const auto& d : r.diagrams)
    h += QStringLiteral("<figure><figcaption>%1</figcaption>\n%2</figure>\n")
             .arg(esc(d.caption), QString::fromUtf8(d.svg));
  h += QStringLiteral("</div>\n");

  section(h, QStringLiteral("Revision history"));
  h += QStringLiteral("<table><tr><th>#</th><th>revision</th><th>made from</th><th>ops</th></tr>\n");
  for (const auto& rev : r.history)
    h += QStringLiteral("<tr%1><td class=\"n\">%2</td><td>%3%4</td><td>%5</td><td class=\"n\">%6</td></tr>\n")
             .arg(rev.current ? QStringLiteral(" style=\"font-weight:bold\"") : QString())
             .arg(rev.index).arg(esc(rev.name), rev.current ? QStringLiteral(" (current)") : QString())
             .arg(rev.parent < 0 ? QStringLiteral("loaded") : QString::number(rev.parent)).arg(rev.ops);
  h += QStringLiteral("</table>\n");

  if (r.diff) {
    const auto& d = *r.diff;
    int folded = 0;
    for (const auto& x : d.removed) folded += x.foldedInto ? 1 : 0;
    section(h, QStringLiteral("Differences"));
    h += QStringLiteral("<p>%1: <b>%2</b> added, <b>%3</b> removed (%4 folded), <b>%5</b> changed.</p>\n")
             .arg(esc(r.diffCaption)).arg(d.added.size()).arg(d.removed.size()).arg(folded).arg(d.changed.size());
    if (!d.equal()) {
      h += QStringLiteral("<table><tr><th></th><th>op</th><th>module</th><th>what</th></tr>\n");
      int shown = 0;
      for (const auto& x : d.removed) {
        if (++shown > 300) break;
        h += diffRow(QStringLiteral("removed"), x,
                     x.foldedInto ? QStringLiteral("folded into %1 %2").arg(x.foldedInto->op, x.foldedInto->modulePath)
                                  : QString());
      }
      for (const auto& x : d.changed)
        if (++shown <= 300) h += diffRow(QStringLiteral("changed"), x, x.what.join(QStringLiteral(", ")));
      for (const auto& x : d.added)
        if (++shown <= 300) h += diffRow(QStringLiteral("added"), x, QString());
      h += QStringLiteral("</table>\n");
    }
  }

  section(h, QStringLiteral("Compare"));
  if (r.compare && r.compare->ok) {
    const auto& c = *r.compare;
    // The verdict and its reason, worded as the Compare dock words them.
    const auto verdict = verdictLine(c);
    h += QStringLiteral("<p class=\"%1 verdict\"><b>%2</b>%3</p>\n")
             .arg(verdict.good() ? QStringLiteral("good") : QStringLiteral("bad"),
                  esc(verdict.word.left(1).toUpper() + verdict.word.mid(1)),
                  verdict.reason.isEmpty() ? QString() : QStringLiteral(" — ") + esc(verdict.reason));
    h += QStringLiteral(
        "<table><tr><th>output</th><th>max abs</th><th>max rel</th><th>mismatched</th><th>cosine</th><th></th></tr>\n");
    for (const auto& o : c.outputs)
      h += QStringLiteral(
               "<tr><td>%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td><td class=\"n\">%4 of %5</td>"
               "<td class=\"n\">%6</td><td class=\"%7\">%8</td></tr>\n")
               .arg(esc(o.label), num(o.maxAbs), num(o.maxRel))
               .arg(o.mismatched)
               .arg(o.numel)
               .arg(num(o.cosine, 6))
               .arg(o.pass ? QStringLiteral("good") : QStringLiteral("bad"),
                    o.pass ? QStringLiteral("pass") : QStringLiteral("fail"));
    h += QStringLiteral("</table>\n");
    if (c.firstDivergence)
      h += QStringLiteral("<p><b>First divergence</b>: %1 <code>%2</code> (node %3), max abs %4.</p>\n")
               .arg(esc(c.firstDivergence->modulePath), esc(c.firstDivergence->op)).arg(c.firstDivergence->node)
               .arg(num(c.firstDivergence->maxAbs));
    else if (c.intermediateDivergence)
      h += QStringLiteral(
               "<p><b>Outputs equal, but an intermediate is beyond tolerance</b>: %1 <code>%2</code> (node %3), max "
               "abs %4.</p>\n")
               .arg(esc(c.intermediateDivergence->label), esc(c.intermediateDivergence->op))
               .arg(c.intermediateDivergence->node)
               .arg(num(c.intermediateDivergence->maxAbs));
    else
      h += QStringLiteral("<p>First divergence: none (every compared node within tolerance).</p>\n");
    if (!c.changes.isEmpty()) {
      h += QStringLiteral("<p>Compared where each change hands its values on:</p><ul>\n");
      for (const QString& change : c.changes) h += QStringLiteral("<li>%1</li>\n").arg(esc(change));
      h += QStringLiteral("</ul>\n");
    }
  } else {
    h += QStringLiteral("<p class=\"muted\">%1</p>\n")
             .arg(esc(r.compare && !r.compare->error.isEmpty() ? r.compare->error
                      : r.compareNote.isEmpty()                ? QStringLiteral("No compare was run.")
                                                               : r.compareNote));
  }

  section(h, QStringLiteral("Profile"));
  if (r.before) {
    const auto& b = *r.before;
    if (r.after) {
      const double speedup = r.after->run.median > 0 ? b.run.median / r.after->run.median : 0;
      h += QStringLiteral(
               "<p class=\"speedup\">Speedup ×%1</p>\n<p>%2: median %3 ms per run · %4: median %5 ms per run "
               "(%6 runs, %7 threads, %8).</p>\n")
               .arg(speedup, 0, 'f', 2)
               .arg(esc(r.beforeLabel), ms(b.run.median), esc(r.afterLabel), ms(r.after->run.median))
               .arg(b.runMs.size())
               .arg(b.threads)
               .arg(esc(b.device));
    } else {
      h += QStringLiteral("<p>%1: median %2 ms per run (p10 %3, p90 %4; %5 runs, %6 threads, %7).</p>\n")
               .arg(esc(r.beforeLabel), ms(b.run.median), ms(b.run.p10), ms(b.run.p90))
               .arg(b.runMs.size())
               .arg(b.threads)
               .arg(esc(b.device));
    }
    h += QStringLiteral("<p class=\"muted\">Time per op kind (sum over its nodes, median over runs).</p>\n");
    h += QString::fromUtf8(profileChartSvg(b, r.after ? &*r.after : nullptr));
  } else {
    h += QStringLiteral("<p class=\"muted\">%1</p>\n")
             .arg(esc(r.profileNote.isEmpty() ? QStringLiteral("No profile was run.") : r.profileNote));
  }
  h += QStringLiteral("</body></html>\n");
  return h.toUtf8();
}

}  // namespace graft::core::report
