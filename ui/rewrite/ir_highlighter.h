#pragma once
// Colours TorchScript IR text: %values, namespace::ops, types, graph/return keywords, # comments
// and [section] headers of rule files.
#include <QtCore/QRegularExpression>
#include <QtGui/QSyntaxHighlighter>

namespace graft::ui {

class IrHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit IrHighlighter(QTextDocument* document);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  QVector<Rule> rules_;
};

}  // namespace graft::ui
