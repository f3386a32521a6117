#include "ui/inspector.h"

namespace graft::ui {

namespace {
QString esc(const QString& s) { return s.toHtmlEscaped(); }
QString row(const QString& a, const QString& b, const QString& c = {}) {
  return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td><td>%3</td></tr>").arg(esc(a), esc(b), esc(c));
}
}  // namespace

Inspector::Inspector(QWidget* parent) : QTextBrowser(parent) {
  setObjectName(QStringLiteral("inspector"));
  setPlaceholderText(tr("Select a node on the canvas, in the module tree or in the IR."));
}

void Inspector::showNode(const core::model::GraphView* view, core::model::NodeId id) {
  node_ = id;
  const auto* n = view ? view->node(id) : nullptr;
  if (!n) {
    clear();
    return;
  }
  QString html = QStringLiteral("<h3>%1</h3><p><code>%2</code></p>").arg(esc(n->op), esc(n->kind));
  if (!n->schema.isEmpty()) html += QStringLiteral("<p><small><code>%1</code></small></p>").arg(esc(n->schema));
  html += QStringLiteral("<h4>%1</h4><table cellspacing=4>").arg(tr("Inputs"));
  for (const auto& in : n->inputs) html += row(in.name, in.type, tr("edge"));
  for (const auto& a : n->attributes) html += row(a.name, a.value, a.kind);
  html += QStringLiteral("</table><h4>%1</h4><table cellspacing=4>").arg(tr("Outputs"));
  for (const auto& out : n->outputs) html += row(out.name, out.type.isEmpty() ? tr("(type unknown)") : out.type);
  html += QStringLiteral("</table><h4>%1</h4><p>%2</p>")
              .arg(tr("Module"), esc(n->modulePath.isEmpty() ? tr("(top level)") : n->modulePath));
  if (!n->sourceFile.isEmpty() || !n->sourceText.isEmpty()) {
    html += QStringLiteral("<h4>%1</h4><p>%2:%3</p>").arg(tr("Source"), esc(n->sourceFile)).arg(n->sourceLine);
    if (!n->sourceText.isEmpty()) html += QStringLiteral("<pre>%1</pre>").arg(esc(n->sourceText));
  }
  setHtml(html);
}

}  // namespace graft::ui
