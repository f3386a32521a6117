#include "ui/ir_view.h"

#include <QtGui/QFontDatabase>
#include <QtGui/QTextBlock>

namespace graft::ui {

IrView::IrView(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName(QStringLiteral("irView"));
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setPlaceholderText(
      tr("Open a model (.pt2 or .pt) with File > Open, or a built-in sample, to see its graph as text."));
}

void IrView::setRevisionText(const QString& ir, const core::model::GraphView* view) {
  setPlainText(ir);
  nodeByLine_.clear();
  lineByNode_.clear();
  if (!view) return;
  for (const auto& n : view->nodes) {
    if (n.irLine < 0) continue;
    nodeByLine_.insert(n.irLine, n.id);
    lineByNode_.insert(n.id, n.irLine);
  }
}

void IrView::setListing(const QString& text, const QHash<core::model::NodeId, int>& lineOf) {
  setPlainText(text);
  lineByNode_ = lineOf;
  nodeByLine_.clear();
  for (auto it = lineOf.begin(); it != lineOf.end(); ++it) nodeByLine_.insert(it.value(), it.key());
}

void IrView::highlightNode(core::model::NodeId id) {
  QList<QTextEdit::ExtraSelection> selections;
  const int line = lineByNode_.value(id, -1);
  if (line >= 0) {
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(QColor(255, 230, 140));
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(document()->findBlockByNumber(line));
    selections << sel;
    setTextCursor(sel.cursor);
    centerCursor();
  }
  setExtraSelections(selections);
}

void IrView::mouseReleaseEvent(QMouseEvent* event) {
  QPlainTextEdit::mouseReleaseEvent(event);
  const int line = textCursor().blockNumber();
  const auto id = nodeAtLine(line);
  if (id != core::model::kNoNode) Q_EMIT nodeActivated(id);
}

}  // namespace graft::ui
