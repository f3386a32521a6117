#pragma once
// Colours Python rule files in the rule editor: keywords, strings (triple-quoted ones across
// lines), comments, numbers, decorators and the names of defined functions and classes.
#include <QtCore/QRegularExpression>
#include <QtGui/QSyntaxHighlighter>

namespace graft::ui {

class PythonHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit PythonHighlighter(QTextDocument* document);

  // The formats, for tests: "keyword", "string", "comment", "number", "decorator", "definition".
  QTextCharFormat formatFor(const QString& kind) const { return formats_.value(kind); }

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QString kind;
    int group = 0;  // the captured group painted (0: the whole match)
  };
  QVector<Rule> rules_;
  QHash<QString, QTextCharFormat> formats_;
};

}  // namespace graft::ui
