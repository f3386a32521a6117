#include "core/rewrite/library.h"

#include "core/rewrite/passes.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QRegularExpression>
#include <QtCore/QStandardPaths>

#include <optional>

// The qrc lives in an object library; referencing its initialiser keeps it linked into graft_core users.
static void initRuleResources() { Q_INIT_RESOURCE(graft); }

namespace graft::core::rewrite {

QString RuleLibrary::userRuleFolder() {
  const QString env = qEnvironmentVariable("GRAFT_RULES_DIR");
  if (!env.isEmpty()) return env;
  // The GUI's AppDataLocation (organisation "Graft", application "graft"), spelled out so
  // graft-cli, whose application name differs, reads the same folder.
  return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
         QStringLiteral("/Graft/graft/rules");
}

void RuleLibrary::addFolder(const QString& folder, bool shipped) {
  QDir dir(folder);
  for (const QString& name : dir.entryList({QStringLiteral("*.rule")}, QDir::Files, QDir::Name)) {
    const QString path = dir.filePath(name);
    auto parsed = parseRuleFile(path);
    if (!parsed.ok()) {
      problems_.push_back(parsed.error);
      continue;
    }
    if (shipped) parsed.rule.source = QStringLiteral("builtin");
    if (parsed.rule.isComputed() && !findNamed(computedRewrites(), parsed.rule.computed)) {
      problems_.push_back({path, 1, 1, QStringLiteral("unknown builtin '%1'").arg(parsed.rule.computed)});
      continue;
    }
    // A user rule with a shipped rule's id replaces it: the user's copy is the one they edit.
    bool replaced = false;
    for (auto& r : rules_)
      if (r.id == parsed.rule.id) { r = parsed.rule; replaced = true; }
    if (!replaced) rules_.push_back(parsed.rule);
  }
}

namespace {

// The module docstring's first line (the title) and the rest of its first paragraph.
void readDocstring(const QString& path, QString& title, QString& description) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return;
  const QString text = QString::fromUtf8(f.read(64 * 1024));
  static const QRegularExpression doc(QStringLiteral(R"re(^(?:\s*#[^\n]*\n)*\s*[rR]?("""|''')(.*?)\1)re"),
                                      QRegularExpression::DotMatchesEverythingOption);
  const auto m = doc.match(text);
  if (!m.hasMatch()) return;
  static const QRegularExpression blank(QStringLiteral("\\n\\s*\\n"));
  QStringList lines = m.captured(2).trimmed().split(blank).value(0).split(QLatin1Char('\n'));
  title = lines.takeFirst().trimmed();
  description = lines.join(QLatin1Char(' ')).simplified();
}

}  // namespace

void RuleLibrary::addPythonFolder(const QString& folder, bool shipped) {
  QDir dir(folder);
  for (const QString& name : dir.entryList({QStringLiteral("*.py")}, QDir::Files, QDir::Name)) {
    PythonLibraryRule r;
    r.path = dir.filePath(name);
    r.id = QLatin1String(kPythonRulePrefix) +
           QFileInfo(name).completeBaseName().replace(QLatin1Char('_'), QLatin1Char('-'));
    readDocstring(r.path, r.title, r.description);
    if (r.title.isEmpty()) r.title = name;
    r.source = shipped ? QStringLiteral("builtin") : r.path;
    // A user file with a shipped file's id replaces it, as for text rules.
    bool replaced = false;
    for (auto& p : pythonRules_)
      if (p.id == r.id) { p = r; replaced = true; }
    if (!replaced) pythonRules_.push_back(r);
  }
}

const PythonLibraryRule* RuleLibrary::findPython(const QString& id) const {
  for (const auto& r : pythonRules_)
    if (r.id == id) return &r;
  return nullptr;
}

model::Diagnostics RuleLibrary::diagnostics() const {
  model::Diagnostics out;
  for (const auto& p : problems_) {
    auto d = p.diagnostic();  // an error in that file; the rest of the library loads
    d.hint = QStringLiteral("the rule file is left out of the library");
    out.push_back(d);
  }
  return out;
}

RuleLibrary RuleLibrary::load() {
  initRuleResources();
  RuleLibrary lib;
  lib.addFolder(QStringLiteral(":/rules"), true);
  lib.addFolder(userRuleFolder(), false);
  lib.addPythonFolder(QStringLiteral(":/rules/python"), true);
  lib.addPythonFolder(userRuleFolder(), false);
  return lib;
}

const Rule* RuleLibrary::find(const QString& id) const {
  for (const auto& r : rules_)
    if (r.id == id) return &r;
  return nullptr;
}

std::optional<Rule> RuleLibrary::resolveText(const QString& spec, QString* error, model::Diagnostic* diagnostic) const {
  if (const Rule* r = find(spec)) return *r;
  // A path that exists and is not a folder is read as a rule file under the input policy, which
  // refuses devices, pipes and /proc files with a reason.
  const QFileInfo specFile(spec);
  if (spec.endsWith(QLatin1String(".rule")) || (specFile.exists() && !specFile.isDir())) {
    if (!specFile.exists()) {
      if (error) *error = QStringLiteral("no such rule file: %1").arg(spec);
      return std::nullopt;
    }
    auto parsed = parseRuleFile(spec);
    if (!parsed.ok()) {
      if (error) *error = parsed.error.toString();
      if (diagnostic) *diagnostic = parsed.error.diagnostic();
      return std::nullopt;
    }
    if (parsed.rule.isComputed() && !findNamed(computedRewrites(), parsed.rule.computed)) {
      if (error) *error = QStringLiteral("%1:1:1: unknown builtin '%2'").arg(spec, parsed.rule.computed);
      return std::nullopt;
    }
    return parsed.rule;
  }
  if (error) {
    QStringList ids;
    for (const auto& r : rules_) ids << r.id;
    *error = QStringLiteral("unknown rule '%1' (known: %2)").arg(spec, ids.join(QStringLiteral(", ")));
  }
  return std::nullopt;
}

std::optional<Rule> RuleLibrary::resolve(const QString& spec, QString* error, model::Diagnostic* diagnostic) const {
  QString why;
  auto rule = resolveText(spec, &why, diagnostic);
  if (!rule && error) *error = why;
  if (!rule && diagnostic && diagnostic->message.isEmpty())
    *diagnostic = model::Diagnostic::error(QStringLiteral("rewrite"), why);
  return rule;
}

}  // namespace graft::core::rewrite
