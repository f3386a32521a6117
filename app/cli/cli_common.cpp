#include "app/cli/cli_common.h"

#include "core/io/file_policy.h"
#include "core/model/plural.h"
#include "core/run/threads.h"

#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <cstdio>

namespace graft::cli {

void addModelOptions(QCommandLineParser& parser) {
  parser.addOption({QStringLiteral("json"), QStringLiteral("Machine-readable JSON on stdout.")});
  parser.addOption({QStringLiteral("sample"),
                    QStringLiteral("Use built-in sample NAME (cnn, mlp, transformer) as the model."),
                    QStringLiteral("NAME")});
  parser.addOption({QStringLiteral("no-freeze"), QStringLiteral("Keep parameters as attributes (do not freeze).")});
  parser.addOption(
      {QStringLiteral("trust"),
       QStringLiteral("Trust the model files: let a TorchScript file's __setstate__ run while it loads, and let "
                      "runs call ops that reach outside the process (aten::save, aten::from_file, ...). "
                      "Without it such files are refused with the op named (docs/safety.md).")});
  parser.addOption({QStringLiteral("timeout"),
                    QStringLiteral("Stop with exit 2 when the command runs longer than SECONDS."),
                    QStringLiteral("SECONDS")});
  parser.addOption({QStringLiteral("threads"),
                    QStringLiteral("Intra-op threads for runs (default: the machine's physical cores, %1).")
                        .arg(core::run::physicalCores()),
                    QStringLiteral("N")});
}

namespace {
// Whether a command's options (its help text) include one that names a file to write.
bool writesFiles(const QString& helpText) {
  for (const char* option : {"--output <", "--svg <", "--png <", "--dot <", "--html <", "--trace <"})
    if (helpText.contains(QLatin1String(option))) return true;
  return false;
}
}  // namespace

QString outputRule() {
  return QStringLiteral(
      "Output files (-o, --svg, --png, --dot, --html, --trace): an existing file is replaced, as cp and compilers do, "
      "and written whole or not at all (a failed write leaves the old file as it was). A file the command reads (the "
      "model, --against, an --input file, a rule file) is never written: naming it as an output is refused, also "
      "through a symbolic or hard link. A path that is itself a symbolic link is refused, never written through, and "
      "so is a device, a pipe or a folder.\n");
}

bool parseOrExit(QCommandLineParser& parser, const Command& command, const QStringList& arguments) {
  parser.setApplicationDescription(command.summary);
  const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
  parser.addOption(help);
  QStringList argv = arguments;
  argv.prepend(QStringLiteral("graft-cli ") + command.name);
  if (!parser.parse(argv)) {
    fail(parser.errorText() + QStringLiteral(" (see graft-cli %1 --help)").arg(command.name));
    return false;
  }
  if (parser.isSet(help)) {
    const QString options = parser.helpText().section(QLatin1Char('\n'), 2);
    printText(QStringLiteral("Usage: graft-cli %1 %2\n\n").arg(command.name, command.usage) + options +
              (writesFiles(options) ? QStringLiteral("\n") + outputRule() : QString()));
    std::exit(kOk);
  }
  return true;
}

int hostThreads(const QCommandLineParser& parser) {
  return parser.isSet(QStringLiteral("threads")) ? parser.value(QStringLiteral("threads")).toInt() : 0;
}

std::unique_ptr<core::model::Document> openModel(const QCommandLineParser& parser, int index) {
  if (parser.isSet(QStringLiteral("threads"))) {
    bool ok = false;
    const int threads = parser.value(QStringLiteral("threads")).toInt(&ok);
    if (!ok || threads < 1) {
      fail(QStringLiteral("--threads takes a positive whole number, not \"%1\"")
               .arg(parser.value(QStringLiteral("threads"))));
      return nullptr;
    }
    if (threads > core::run::maxThreads()) {
      fail(QStringLiteral("--threads %1 is more than this machine can run: at most %2 (four per hardware thread, "
                          "at least 256, at most 1024)")
               .arg(threads)
               .arg(core::run::maxThreads()),
           QStringLiteral("Leave --threads out to use one per physical core (%1).").arg(core::run::physicalCores()));
      return nullptr;
    }
    core::run::useThreads(threads);
  }
  core::io::LoadOptions options;
  options.freeze = !parser.isSet(QStringLiteral("no-freeze"));
  options.trust = parser.isSet(QStringLiteral("trust"));
  core::io::LoadResult result;
  if (parser.isSet(QStringLiteral("sample")) && index == 0) {
    result = core::io::loadSample(parser.value(QStringLiteral("sample")), options);
  } else {
    const int fileIndex = parser.isSet(QStringLiteral("sample")) ? index - 1 : index;
    const QStringList files = parser.positionalArguments();
    if (fileIndex < 0 || fileIndex >= files.size()) {
      fail(QStringLiteral("missing MODEL: give a .pt file or --sample NAME"));
      return nullptr;
    }
    result = core::io::loadFile(files[fileIndex], options);
  }
  if (!result.ok()) {
    const QStringList files = parser.positionalArguments();
    const bool sample = parser.isSet(QStringLiteral("sample")) && index == 0;
    const int fileIndex = parser.isSet(QStringLiteral("sample")) ? index - 1 : index;
    fail(result.error.diagnostics(sample ? QString() : files.value(fileIndex)));
    return nullptr;
  }
  return std::move(result.document);
}

void addInputOption(QCommandLineParser& parser) {
  parser.addOption(
      {QStringLiteral("input"),
       QStringLiteral(
           "An input: DIMSxDIMS[:dtype] (random, seeded), a tensor file (.pt, .npy), (SPEC,SPEC), [SPEC,SPEC] "
           "or a scalar; NAME=SPEC gives the input of that name (the others keep the model's sample "
           "inputs). Repeat per input."),
       QStringLiteral("SPEC")});
}

std::optional<core::model::InputSet> inputsOrFail(const QCommandLineParser& parser, const core::model::Document& doc,
                                                quint64 seed) {
  auto result = core::io::inputsFor(doc, parser.values(QStringLiteral("input")), seed);
  if (result.inputs) return std::move(result.inputs);
  const QString hint =
      result.missingShape >= 0
          ? QStringLiteral("pass one --input SPEC per forward argument, e.g. --input 1x3x224x224:float32 --input 3")
          : QString();
  fail(result.diagnostics(commandJob(), hint));
  return std::nullopt;
}

namespace {

// The running command's diagnostics: graft-cli runs one command per process.
struct CommandState {
  QString job;
  core::model::Diagnostics diagnostics;
  bool jsonPrinted = false;
};

CommandState& state() {
  static CommandState s;
  return s;
}

}  // namespace

void setCommandJob(const QString& job) { state().job = job; }
QString commandJob() { return state().job; }

void report(const core::model::Diagnostic& diagnostic) {
  std::fprintf(stderr, "graft-cli: %s\n", qPrintable(diagnostic.toLine()));
  state().diagnostics.push_back(diagnostic);
}

void report(const core::model::Diagnostics& diagnostics) {
  // A line repeated (a rule skipped at 57 sites for one reason) prints once, counted; --json
  // still lists each.
  QStringList lines;
  for (const auto& d : diagnostics) {
    lines << d.toLine();
    state().diagnostics.push_back(d);
  }
  for (const QString& line : core::model::countedRepeats(lines))
    std::fprintf(stderr, "graft-cli: %s\n", qPrintable(line));
}

const core::model::Diagnostics& reported() { return state().diagnostics; }
bool jsonPrinted() { return state().jsonPrinted; }

bool samePath(const QString& x, const QString& y) {
  const QFileInfo a(x), b(y);
  return a.exists() && b.exists() ? a.canonicalFilePath() == b.canonicalFilePath()
                                  : a.absoluteFilePath() == b.absoluteFilePath();
}

QStringList inputFiles(const QCommandLineParser& parser) {
  QStringList files = parser.positionalArguments();
  for (const char* option : {"against", "input", "rule"}) {
    const QString name = QString::fromLatin1(option);
    if (!parser.optionNames().contains(name)) continue;
    for (const QString& value : parser.values(name)) {
      files << value;
      if (const qsizetype eq = value.indexOf(QLatin1Char('=')); eq > 0) files << value.mid(eq + 1);
    }
  }
  QStringList existing;
  for (const QString& f : files)
    if (QFileInfo::exists(f)) existing << f;
  return existing;
}

bool outputAllowed(const QCommandLineParser& parser, const QString& out) {
  if (const QString why = core::io::checkOutputPath(out, inputFiles(parser)); !why.isEmpty()) {
    fail(why);
    return false;
  }
  return true;
}

int fail(const QString& message, const QString& hint) {
  report(core::model::Diagnostic::error(state().job, message, hint));
  return kUsageOrInput;
}

int fail(const core::model::Diagnostics& diagnostics) {
  report(diagnostics);
  return kUsageOrInput;
}

void printJson(const QJsonObject& object) {
  QJsonObject out = object;
  out.insert(QStringLiteral("diagnostics"), core::model::toJson(state().diagnostics));
  std::fputs(QJsonDocument(out).toJson(QJsonDocument::Indented).constData(), stdout);
  state().jsonPrinted = true;
}

void printText(const QString& text) {
  std::fputs(text.toUtf8().constData(), stdout);
  if (!text.endsWith(QLatin1Char('\n'))) std::fputc('\n', stdout);
}

}  // namespace graft::cli
