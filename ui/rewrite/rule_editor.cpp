#include "ui/rewrite/rule_editor.h"

#include "core/model/plural.h"
#include "core/io/atomic_write.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "core/rewrite/python_rules.h"
#include "ui/rewrite/ir_highlighter.h"
#include "ui/rewrite/python_highlighter.h"

#include <QtConcurrent/QtConcurrentRun>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QFutureWatcher>
#include <QtCore/QRegularExpression>
#include <QtCore/QScopedValueRollback>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTimer>
#include <QtGui/QFontDatabase>
#include <QtGui/QTextBlock>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QFormLayout>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QStackedWidget>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {

QPlainTextEdit* codeEdit(QWidget* parent, const QString& name, const QString& placeholder) {
  auto* e = new QPlainTextEdit(parent);
  e->setObjectName(name);
  e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  e->setPlaceholderText(placeholder);
  e->setLineWrapMode(QPlainTextEdit::NoWrap);
  return e;
}

QPlainTextEdit* irEdit(QWidget* parent, const QString& name, const QString& placeholder) {
  auto* e = codeEdit(parent, name, placeholder);
  new IrHighlighter(e->document());
  return e;
}

QString trimmedBlock(const QString& s) {
  QString t = s;
  while (t.endsWith(QLatin1Char('\n'))) t.chop(1);
  return t;
}

const char* kPythonTemplate =
    "\"\"\"relu as clamp_min(x, 0).\"\"\"\n"
    "import torch\n"
    "\n"
    "\n"
    "def pattern(x):\n"
    "    return torch.relu(x)\n"
    "\n"
    "\n"
    "def replacement(x):\n"
    "    return torch.clamp_min(x, 0)\n";

// A rule id as a Python file stem (the library lists it as python:<stem with '-'>).
QString stemOf(const QString& id) {
  QString stem = id.trimmed();
  stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_-]")), QStringLiteral("_"));
  stem.replace(QLatin1Char('-'), QLatin1Char('_'));
  return stem.isEmpty() ? QStringLiteral("my_rule") : stem;
}

}  // namespace

RuleEditor::RuleEditor(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("ruleEditor"));
  languageBox_ = new QComboBox(this);
  languageBox_->setObjectName(QStringLiteral("ruleLanguage"));
  languageBox_->addItem(tr("IR text"));
  languageBox_->addItem(tr("Python"));
  languageBox_->setToolTip(tr("Write the rule as TorchScript IR text, or as Python pattern and replacement functions"));
  auto* open = new QPushButton(tr("Open Rule…"), this);
  open->setObjectName(QStringLiteral("openRule"));
  open->setToolTip(tr("Open a rule file: IR text (.rule) or Python (.py)"));
  id_ = new QLineEdit(this);
  id_->setObjectName(QStringLiteral("ruleId"));
  id_->setPlaceholderText(tr("my-rule"));
  title_ = new QLineEdit(this);
  title_->setObjectName(QStringLiteral("ruleTitle"));
  pattern_ =
      irEdit(this, QStringLiteral("pattern"), QStringLiteral("graph(%x):\n  %r = aten::relu(%x)\n  return (%r)"));
  replacement_ = irEdit(
      this, QStringLiteral("replacement"),
      QStringLiteral(
          "graph(%x):\n  %zero : int = prim::Constant[value=0]()\n  %r = aten::clamp_min(%x, %zero)\n  return (%r)"));
  conditions_ = irEdit(this, QStringLiteral("conditions"),
                       tr("optional, one per line: %alpha == 1, %x dtype float32, %w rank 2, module ~ layer*"));
  conditions_->setMaximumHeight(70);
  python_ = codeEdit(this, QStringLiteral("pythonSource"), QString::fromLatin1(kPythonTemplate));
  python_->setTabStopDistance(4 * python_->fontMetrics().horizontalAdvance(QLatin1Char(' ')));
  new PythonHighlighter(python_->document());
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("ruleStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* saveButton = new QPushButton(tr("Save to my rules"), this);
  saveButton->setObjectName(QStringLiteral("saveRule"));

  auto* header = new QHBoxLayout;
  header->addWidget(new QLabel(tr("Rule as"), this));
  header->addWidget(languageBox_);
  header->addStretch(1);
  header->addWidget(open);
  form_ = new QFormLayout;
  form_->addRow(tr("Id"), id_);
  form_->addRow(tr("Title"), title_);
  // IR: pattern and replacement side by side, conditions below; Python: one source.
  auto* irPage = new QWidget(this);
  auto* sides = new QSplitter(Qt::Horizontal, irPage);
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
  auto* irLayout = new QVBoxLayout(irPage);
  irLayout->setContentsMargins(0, 0, 0, 0);
  irLayout->addWidget(sides, 1);
  irLayout->addWidget(new QLabel(tr("Conditions"), irPage));
  irLayout->addWidget(conditions_);
  auto* pythonPage = new QWidget(this);
  auto* pythonLayout = new QVBoxLayout(pythonPage);
  pythonLayout->setContentsMargins(0, 0, 0, 0);
  // The hint is a tooltip: on a 1366x768 screen the dock's height goes to the source.
  python_->setToolTip(tr("pattern and replacement with the same arguments, or RULES = [Rule(…)] (graft.rules); "
                         "compiled by a child Python 600 ms after you stop typing"));
  pythonLayout->addWidget(python_, 1);
  forms_ = new QStackedWidget(this);
  forms_->addWidget(irPage);
  forms_->addWidget(pythonPage);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(header);
  layout->addLayout(form_);
  layout->addWidget(forms_, 1);
  layout->addWidget(status_);
  layout->addWidget(saveButton);

  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(150);  // re-check once typing pauses
  connect(debounce_, &QTimer::timeout, this, &RuleEditor::checkTyped);
  // A keystroke makes the editor's text the current rule at once (the dock then shows and applies
  // nothing older); the check follows once typing pauses, or at once when Apply asks for it.
  const auto typed = [this] {
    if (filling_) return;
    debounce_->start();  // first: the dock asks pending() when it hears of the edit
    markEdited();
  };
  for (auto* e : {pattern_, replacement_, conditions_, python_}) connect(e, &QPlainTextEdit::textChanged, this, typed);
  connect(id_, &QLineEdit::textChanged, this, [this, typed] {
    if (language_ == Language::Ir) typed();
  });
  connect(languageBox_, &QComboBox::currentIndexChanged, this,
          [this](int index) { setLanguage(index == 1 ? Language::Python : Language::Ir); });
  connect(open, &QPushButton::clicked, this, &RuleEditor::openDialog);
  connect(saveButton, &QPushButton::clicked, this, [this] {
    QString error;
    if (save(&error).isEmpty()) status_->setText(error);
  });
  check();
}

RuleEditor::~RuleEditor() {
  if (cancel_) cancel_->store(true);  // a compile still running stops its child Python now
}

void RuleEditor::setLanguage(Language language) {
  if (language == language_) return;
  switchForm(language);
  const bool python = language == Language::Python;
  if (python && python_->toPlainText().trimmed().isEmpty()) {
    const QSignalBlocker block(python_);
    python_->setPlainText(QString::fromLatin1(kPythonTemplate));
  }
  markEdited();
  previewPending_ = true;
  check();
  if (!python) Q_EMIT previewChanged();
}

void RuleEditor::switchForm(Language language) {
  if (language == language_) return;
  language_ = language;
  const bool python = language == Language::Python;
  {
    const QSignalBlocker block(languageBox_);
    languageBox_->setCurrentIndex(python ? 1 : 0);
  }
  forms_->setCurrentIndex(python ? 1 : 0);
  form_->setRowVisible(title_, !python);  // a Python rule's title is its docstring
  debounce_->setInterval(python ? kPythonDebounceMs : 150);
  ++generation_;  // a compile still running belongs to the other form
  if (cancel_) cancel_->store(true);
  busy_ = false;
  compiledSet_.reset();
  checkedSource_.clear();
  debounce_->stop();
}

void RuleEditor::setRevision(core::model::RevisionPtr revision) {
  revision_ = std::move(revision);
  // A Python source already compiled is only recounted (or keeps its error): it did not change.
  if (language_ == Language::Python && !busy_ && python_->toPlainText() == checkedSource_) {
    if (compiledSet_) countPythonMatches();
    return;
  }
  check();
}

void RuleEditor::setRuleText(const QString& text) {
  const auto parsed = core::rewrite::parseRule(text, QStringLiteral("rule"));
  const auto& r = parsed.rule;
  switchForm(Language::Ir);
  const QScopedValueRollback<bool> filling(filling_, true);  // loaded, not typed
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
  modified_ = false;
  check();
}

void RuleEditor::setPythonText(const QString& source, const QString& fileName) {
  pythonFile_ = QFileInfo(fileName).fileName();
  switchForm(Language::Python);
  {
    const QSignalBlocker block(python_);
    python_->setPlainText(source);
  }
  {
    const QSignalBlocker block(id_);
    id_->setText(pythonFile_.isEmpty() ? QStringLiteral("my-rule") : QFileInfo(pythonFile_).completeBaseName());
  }
  debounce_->stop();
  modified_ = false;
  previewPending_ = false;  // loaded, not typed: the dock shows it as the selected rule
  compiledSet_.reset();
  check();
}

bool RuleEditor::openRuleFile(const QString& path, QString* error) {
  QFile f(path);
  if (!QFileInfo(path).isFile() || !f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot read %1").arg(path);
    return false;
  }
  const QString text = QString::fromUtf8(f.read(16 * 1024 * 1024));
  // Opened by the user: the file's rule is the one shown and applied (it is saved on disk, so
  // not modified).
  if (core::rewrite::isPythonRuleFile(path)) {
    setPythonText(text, path);
    Q_EMIT edited();
    previewPending_ = true;  // preview its matches when the compile comes back
  } else {
    setRuleText(text);
    Q_EMIT edited();
    Q_EMIT previewChanged();
  }
  return true;
}

void RuleEditor::openDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Rule"), core::rewrite::RuleLibrary::userRuleFolder(),
                                   tr("Rules (*.rule *.py);;IR text rules (*.rule);;Python rules (*.py)"));
  if (path.isEmpty()) return;
  QString error;
  if (!openRuleFile(path, &error)) status_->setText(error);
}

void RuleEditor::setDraft(const QString& id, const QString& pattern, const QStringList& conditions) {
  switchForm(Language::Ir);
  {
    const QScopedValueRollback<bool> filling(filling_, true);  // one edit, marked below
    id_->setText(id);
    title_->setText(tr("New rule from selection"));
    pattern_->setPlainText(trimmedBlock(pattern));
    replacement_->setPlainText(trimmedBlock(pattern));
    conditions_->setPlainText(conditions.join(QLatin1Char('\n')));
  }
  tests_.clear();
  debounce_->stop();
  markEdited();
  check();
  Q_EMIT previewChanged();
}

void RuleEditor::setPythonDraft(const QString& id, const QString& source) {
  pythonFile_.clear();
  switchForm(Language::Python);
  {
    const QSignalBlocker block(python_);
    python_->setPlainText(source);
  }
  {
    const QSignalBlocker block(id_);
    id_->setText(id);
  }
  debounce_->stop();
  markEdited();
  previewPending_ = true;
  compiledSet_.reset();
  check();
}

QString RuleEditor::ruleText() const {
  QString text = QStringLiteral("id: %1\ntitle: %2\n[pattern]\n%3\n[replacement]\n%4\n")
                     .arg(id_->text().trimmed(), title_->text().trimmed(), trimmedBlock(pattern_->toPlainText()),
                          trimmedBlock(replacement_->toPlainText()));
  const QString conditions = trimmedBlock(conditions_->toPlainText());
  if (!conditions.trimmed().isEmpty()) text += QStringLiteral("[condition]\n%1\n").arg(conditions);
  return text + tests_;
}

QString RuleEditor::pythonText() const { return python_->toPlainText(); }

bool RuleEditor::pending() const { return debounce_->isActive() || busy_; }

void RuleEditor::checkNow() {
  if (!debounce_->isActive()) return;
  debounce_->stop();
  checkTyped();
}

void RuleEditor::checkTyped() {
  if (language_ == Language::Python) {
    previewPending_ = true;  // shown when the compile comes back
    compiledSet_.reset();
    check();
    return;
  }
  check();
  Q_EMIT previewChanged();
}

void RuleEditor::markEdited() {
  modified_ = true;
  Q_EMIT edited();
}

QString RuleEditor::status() const { return status_->text(); }

void RuleEditor::check() {
  if (language_ == Language::Python) startPythonCheck();
  else checkIr();
}

void RuleEditor::checkIr() {
  matches_ = -1;
  rule_.reset();
  rules_.clear();
  siteRules_.clear();
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
    const auto report = core::rewrite::previewMatches(*revision_, parsed.rule, &runError);
    if (!runError.isEmpty()) {
      error = runError;
      status_->setText(error);
    } else {
      matches_ = report.matches;
      rule_ = parsed.rule;
      rules_ = {parsed.rule};
      report_ = report;
      siteRules_.fill(0, report.sites.size());
      status_->setText(core::model::counted(report.matches, tr("match"), tr("matches")) +
                       (report.skipped.isEmpty()
                            ? QString()
                            : tr(", %1 skipped: %2").arg(report.skipped.size()).arg(report.skipped.first().reason)));
    }
  } else {
    status_->setText(tr("Rule parses; open a model to count its matches."));
  }
  Q_EMIT checked(matches_, error);
}

QString RuleEditor::pythonFileName() const {
  if (!pythonFile_.isEmpty()) return pythonFile_;
  return stemOf(id_->text()) + QStringLiteral(".py");
}

void RuleEditor::startPythonCheck() {
  const quint64 generation = ++generation_;
  matches_ = -1;
  rule_.reset();
  rules_.clear();
  siteRules_.clear();
  report_ = {};
  markErrorLine(0);
  const QString source = python_->toPlainText();
  if (source.trimmed().isEmpty()) {
    if (cancel_) cancel_->store(true);
    busy_ = false;
    status_->setText(
        tr("Write pattern and replacement functions (or select nodes and press New rule from selection)."));
    Q_EMIT checked(matches_, QString());
    if (std::exchange(previewPending_, false)) Q_EMIT previewChanged();
    return;
  }
  // Each compile reads its own copy of the source, so a later edit never rewrites a file the
  // child is reading; named as the user's file, so messages read like theirs.
  if (!work_) work_ = std::make_unique<QTemporaryDir>();
  const QString dir = work_->filePath(QString::number(generation));
  const QString file = QDir(dir).filePath(pythonFileName());
  if (!work_->isValid() || !QDir().mkpath(dir) || !core::io::writeAtomically(file, source.toUtf8()).isEmpty()) {
    busy_ = false;
    status_->setText(tr("Cannot write the rule for Python into %1").arg(dir));
    Q_EMIT checked(matches_, status_->text());
    return;
  }
  busy_ = true;
  status_->setText(tr("Compiling the Python rule…"));
  // The compile this one replaces is stale: its child Python is stopped rather than waited for.
  if (cancel_) cancel_->store(true);
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto cancel = cancel_;
  auto revision = revision_;
  auto* watcher = new QFutureWatcher<core::rewrite::PythonRuleSet>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, dir, source] {
    watcher->deleteLater();
    QDir(dir).removeRecursively();
    if (generation != generation_) return;  // stale: edited (or switched form) since it started
    busy_ = false;
    checkedSource_ = source;
    pythonChecked(watcher->result());
  });
  // The child Python runs off the GUI thread: typing goes on while it compiles.
  watcher->setFuture(QtConcurrent::run([file, revision, cancel] {
    const QJsonObject ranks = revision ? core::rewrite::siteRanks(*revision) : QJsonObject();
    return core::rewrite::compilePythonRules(file, ranks, cancel.get());
  }));
}

void RuleEditor::pythonChecked(const core::rewrite::PythonRuleSet& set) {
  if (!set.ok()) {
    compiledSet_.reset();
    const auto& e = set.error;
    const QString error = e.line > 0 ? tr("line %1: %2").arg(e.line).arg(e.message) : e.message;
    status_->setText(error);
    markErrorLine(e.line);
    Q_EMIT checked(matches_, error);
    if (std::exchange(previewPending_, false)) Q_EMIT previewChanged();
    return;
  }
  compiledSet_ = std::make_shared<core::rewrite::PythonRuleSet>(set);
  countPythonMatches();
}

void RuleEditor::countPythonMatches() {
  matches_ = -1;
  rule_.reset();
  rules_.clear();
  siteRules_.clear();
  report_ = {};
  const QString format = format_ ? format_() : QString();
  rules_ = compiledSet_->forFormat(format);
  if (!rules_.isEmpty()) rule_ = rules_.first();
  QString error;
  if (revision_) {
    report_.name = rule_ ? rule_->id : QString();
    report_.kind = QStringLiteral("rule");
    for (int i = 0; i < rules_.size(); ++i) {
      QString runError;
      const auto r = core::rewrite::previewMatches(*revision_, rules_[i], &runError);
      if (!runError.isEmpty() && error.isEmpty()) error = tr("rule '%1': %2").arg(rules_[i].id, runError);
      report_.matches += r.matches;
      report_.sites += r.sites;
      report_.skipped += r.skipped;
      for (int k = 0; k < r.sites.size(); ++k) siteRules_ << i;
    }
    if (error.isEmpty()) matches_ = report_.matches;
  }
  QStringList names;  // in file order
  for (const auto& r : rules_) names << r.id;
  names.removeDuplicates();
  const QString compiled = tr("compiled from Python in the %1 form (%2)")
                               .arg(format == QLatin1String("pt2") ? tr("torch.export") : tr("TorchScript"),
                                    names.join(QStringLiteral(", ")));
  if (!error.isEmpty()) status_->setText(error);
  else if (!revision_) status_->setText(tr("Rule compiles; open a model to count its matches."));
  else
    status_->setText(core::model::counted(report_.matches, tr("match"), tr("matches")) + QStringLiteral(", ") +
                     compiled +
                     (report_.skipped.isEmpty()
                          ? QString()
                          : tr("; %1 skipped: %2").arg(report_.skipped.size()).arg(report_.skipped.first().reason)));
  Q_EMIT checked(matches_, error);
  if (std::exchange(previewPending_, false)) Q_EMIT previewChanged();
}

void RuleEditor::markErrorLine(int line) {
  QList<QTextEdit::ExtraSelection> marks;
  if (line > 0 && line <= python_->document()->blockCount()) {
    QTextEdit::ExtraSelection mark;
    mark.cursor = QTextCursor(python_->document()->findBlockByNumber(line - 1));
    mark.format.setBackground(QColor(0xff, 0xd7, 0xd7));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    marks << mark;
  }
  python_->setExtraSelections(marks);
}

QString RuleEditor::save(QString* error) {
  const QString folder = core::rewrite::RuleLibrary::userRuleFolder();
  if (language_ == Language::Python) {
    if (!busy_ && !compiledSet_) {
      if (error) *error = tr("Not saved: %1").arg(status_->text());
      return {};
    }
    QDir().mkpath(folder);
    const QString path = QDir(folder).filePath(stemOf(id_->text()) + QStringLiteral(".py"));
    if (const QString why = core::io::writeAtomically(path, python_->toPlainText().toUtf8()); !why.isEmpty()) {
      if (error) *error = tr("Not saved: cannot write %1: %2").arg(path, why);
      return {};
    }
    status_->setText(tr("Saved %1").arg(path));
    modified_ = false;
    Q_EMIT saved(path);
    return path;
  }
  const QString text = ruleText();
  const auto parsed = core::rewrite::parseRule(text, QString());
  if (!parsed.ok()) {
    if (error) *error = tr("Not saved: %1").arg(parsed.error.toString());
    return {};
  }
  QDir().mkpath(folder);
  const QString path = QDir(folder).filePath(parsed.rule.id + QStringLiteral(".rule"));
  if (const QString why = core::io::writeAtomically(path, text.toUtf8()); !why.isEmpty()) {
    if (error) *error = tr("Not saved: cannot write %1: %2").arg(path, why);
    return {};
  }
  status_->setText(tr("Saved %1").arg(path));
  modified_ = false;
  Q_EMIT saved(path);
  return path;
}

}  // namespace graft::ui
