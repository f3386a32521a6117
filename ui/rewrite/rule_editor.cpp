#include "ui/rewrite/rule_editor.h"

#include "core/model/plural.h"
#include "core/io/atomic_write.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "ui/rewrite/ir_highlighter.h"

#include <QtCore/QDir>
#include <QtCore/QTimer>
#include <QtGui/QFontDatabase>
#include <QtWidgets/QFormLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {

QPlainTextEdit* irEdit(QWidget* parent, const QString& name, const QString& placeholder) {
  auto* e = new QPlainTextEdit(parent);
  e->setObjectName(name);
  e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  e->setPlaceholderText(placeholder);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  new IrHighlighter(e->document());
  return e;
}

QString trimmedBlock(const QString& s) {
  QString t = s;
  while (t.endsWith(QLatin1Char('\n'))) t.chop(1);
  return t;
}

}  // namespace

RuleEditor::RuleEditor(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("ruleEditor"));
  id_ = new QLineEdit(this);
  id_->setObjectName(QStringLiteral("ruleId"));
  id_->setPlaceholderText(tr("my-rule"));
  title_ = new QLineEdit(this);
  title_->setObjectName(QStringLiteral("ruleTitle"));
  pattern_ = irEdit(this, QStringLiteral("pattern"), QStringLiteral("graph(%x):\n  %r = aten::relu(%x)\n  return (%r)"));
  replacement_ = irEdit(this, QStringLiteral("replacement"),
                        QStringLiteral("graph(%x):\n  %zero : int = prim::Constant[value=0]()\n  %r = aten::clamp_min(%x, %zero)\n  return (%r)"));
  conditions_ = irEdit(this, QStringLiteral("conditions"), tr("optional, one per line: %alpha == 1, %x dtype float32, %w rank 2, module ~ layer*"));
  conditions_->setMaximumHeight(70);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("ruleStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* saveButton = new QPushButton(tr("Save to my rules"), this);
  saveButton->setObjectName(QStringLiteral("saveRule"));

  auto* form = new QFormLayout;
  form->addRow(tr("Id"), id_);
  form->addRow(tr("Title"), title_);
  auto* sides = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(sides);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(new QLabel(tr("Pattern"), left));
  leftLayout->addWidget(pattern_);
  auto* right = new QWidget(sides);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(new QLabel(tr("Replacement"), right));
  rightLayout->addWidget(replacement_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(sides, 1);
  layout->addWidget(new QLabel(tr("Conditions"), this));
  layout->addWidget(conditions_);
  layout->addWidget(status_);
  layout->addWidget(saveButton);

  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(150);  // re-check once typing pauses
  connect(debounce_, &QTimer::timeout, this, [this] {
    check();
    Q_EMIT previewChanged();
  });
  for (auto* e : {pattern_, replacement_, conditions_})
    connect(e, &QPlainTextEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
  connect(id_, &QLineEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
  connect(saveButton, &QPushButton::clicked, this, [this] {
    QString error;
    if (save(&error).isEmpty()) status_->setText(error);
  });
  check();
}

void RuleEditor::setRevision(core::model::RevisionPtr revision) {
  revision_ = std::move(revision);
  check();
}

void RuleEditor::setRuleText(const QString& text) {
  const auto parsed = core::rewrite::parseRule(text, QStringLiteral("rule"));
  const auto& r = parsed.rule;
  id_->setText(r.id);
  title_->setText(r.title);
  pattern_->setPlainText(trimmedBlock(r.pattern));
  replacement_->setPlainText(trimmedBlock(r.replacement));
  QStringList conditions;
  for (const auto& c : r.conditions) conditions << c.text;
  conditions_->setPlainText(conditions.join(QLatin1Char('\n')));
  tests_.clear();
  for (const auto& t : r.tests) {
    tests_ += (t.shouldMatch ? QStringLiteral("[test match]\n") : QStringLiteral("[test no-match]\n")) + t.ir;
    if (!t.expect.isEmpty()) tests_ += QStringLiteral("[test expect]\n") + t.expect;
  }
  debounce_->stop();  // loaded, not typed: the dock shows the library rule's own matches
  check();
}

void RuleEditor::setDraft(const QString& id, const QString& pattern, const QStringList& conditions) {
  id_->setText(id);
  title_->setText(tr("New rule from selection"));
  pattern_->setPlainText(trimmedBlock(pattern));
  replacement_->setPlainText(trimmedBlock(pattern));
  conditions_->setPlainText(conditions.join(QLatin1Char('\n')));
  tests_.clear();
  debounce_->stop();
  check();
  Q_EMIT previewChanged();
}

QString RuleEditor::ruleText() const {
  QString text = QStringLiteral("id: %1\ntitle: %2\n[pattern]\n%3\n[replacement]\n%4\n")
                     .arg(id_->text().trimmed(), title_->text().trimmed(), trimmedBlock(pattern_->toPlainText()),
                          trimmedBlock(replacement_->toPlainText()));
  const QString conditions = trimmedBlock(conditions_->toPlainText());
  if (!conditions.trimmed().isEmpty()) text += QStringLiteral("[condition]\n%1\n").arg(conditions);
  return text + tests_;
}

QString RuleEditor::status() const { return status_->text(); }

void RuleEditor::check() {
  matches_ = -1;
  rule_.reset();
  report_ = {};
  if (pattern_->toPlainText().trimmed().isEmpty() && replacement_->toPlainText().trimmed().isEmpty()) {
    status_->setText(tr("Write a pattern and its replacement (or select nodes and press New rule from selection)."));
    Q_EMIT checked(matches_, QString());
    return;
  }
  const QString text = ruleText();
  const auto parsed = core::rewrite::parseRule(text, QString());
  QString error;
  if (!parsed.ok()) {
    // Say which box the line is in: the composed file has the header's 3 lines first.
    const int patternLines = int(trimmedBlock(pattern_->toPlainText()).count(QLatin1Char('\n'))) + 1;
    const int line = parsed.error.line;
    QString where;
    if (line >= 4 && line < 4 + patternLines) where = tr("pattern line %1").arg(line - 3);
    else if (line > 4 + patternLines) where = tr("replacement/conditions line %1").arg(line - 4 - patternLines);
    else where = tr("line %1").arg(line);
    error = QStringLiteral("%1, column %2: %3").arg(where).arg(parsed.error.column).arg(parsed.error.message);
    status_->setText(error);
  } else if (revision_) {
    QString runError;
    const auto report = core::rewrite::countMatches(*revision_, parsed.rule, &runError);
    if (!runError.isEmpty()) {
      error = runError;
      status_->setText(error);
    } else {
      matches_ = report.matches;
      rule_ = parsed.rule;
      report_ = report;
      status_->setText(core::model::counted(report.matches, tr("match"), tr("matches")) +
                       (report.skipped.isEmpty() ? QString() : tr(", %1 skipped: %2").arg(report.skipped.size()).arg(report.skipped.first().reason)));
    }
  } else {
    status_->setText(tr("Rule parses; open a model to count its matches."));
  }
  Q_EMIT checked(matches_, error);
}

QString RuleEditor::save(QString* error) {
  const QString text = ruleText();
  const auto parsed = core::rewrite::parseRule(text, QString());
  if (!parsed.ok()) {
    if (error) *error = tr("Not saved: %1").arg(parsed.error.toString());
    return {};
  }
  const QString folder = core::rewrite::RuleLibrary::userRuleFolder();
  QDir().mkpath(folder);
  const QString path = QDir(folder).filePath(parsed.rule.id + QStringLiteral(".rule"));
  if (const QString why = core::io::writeAtomically(path, text.toUtf8()); !why.isEmpty()) {
    if (error) *error = tr("Not saved: cannot write %1: %2").arg(path, why);
    return {};
  }
  status_->setText(tr("Saved %1").arg(path));
  Q_EMIT saved(path);
  return path;
}

}  // namespace graft::ui
