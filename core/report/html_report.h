#pragma once
// One self-contained HTML page about a model, for sharing a result and for teaching: its
// diagram(s) as inline SVG with the overlays, model facts, revision history, the differences, the
// compare table with its first divergence and the profile charts (inline SVG) with the speedup.
// No script, no font, no outside URL: it opens offline in any browser.
#include "core/edit/graph_diff.h"
#include "core/profile/profile.h"
#include "core/run/compare_job.h"

#include <QtCore/QByteArray>
#include <QtCore/QPair>
#include <QtCore/QString>
#include <QtCore/QVector>
#include <optional>

namespace graft::core::model { class Document; }

namespace graft::core::report {

struct HtmlReport {
  QString title;                              // "resnet18.pt"
  QVector<QPair<QString, QString>> facts;     // label, value (plain text)
  struct Diagram {
    QString caption;                          // "A: resnet18.pt"
    QByteArray svg;                           // an inline <svg> element
  };
  QVector<Diagram> diagrams;
  QVector<QPair<QString, QString>> legend;    // colour (#rrggbb), what it marks
  struct Revision {
    int index = 0;
    int parent = -1;
    QString name;
    int ops = 0;
    bool current = false;
  };
  QVector<Revision> history;
  std::optional<edit::GraphDiff> diff;
  QString diffCaption;                        // "A → B"
  std::optional<run::CompareSummary> compare;
  QString compareNote;                        // why there is no compare, when there is none
  std::optional<profile::Profile> before, after;  // `after` absent: one profile only
  QString beforeLabel, afterLabel;
  QString profileNote;                        // why there is no profile, when there is none
  QString generator;                          // "Graft 0.x, libtorch 2.14.1"
};

QByteArray htmlReport(const HtmlReport& report);

// The parts of a report that come from the documents, for the GUI's File > Export Report and
// graft-cli report alike: title, generator, facts and history of `a`, and the differences of
// `revB` (of `b`, or of `a` itself when `b` is null) against `revA`, paired through provenance
// where they share a root. Compare, profile and diagrams are added by the caller.
HtmlReport assembleReport(const model::Document& a, const model::Revision& revA, const model::Document* b,
                          const model::Revision* revB, const QString& captionA, const QString& captionB);

// The facts `graft-cli info` gives, as label/value rows: format, ops, modules, inputs, outputs,
// repeats, the most frequent ops.
QVector<QPair<QString, QString>> modelFacts(const model::Document& document);
// Every revision of `document`, for the history table.
QVector<HtmlReport::Revision> revisionHistory(const model::Document& document);

// A profile's top op kinds as an inline SVG bar chart, before and after side by side.
QByteArray profileChartSvg(const profile::Profile& before, const profile::Profile* after, int kinds = 12);

}  // namespace graft::core::report
