#pragma once
// Shared argument handling for graft-cli subcommands: the MODEL argument, --json, exit codes.
#include "core/io/load.h"
#include "core/model/diagnostic.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QJsonObject>
#include <QtCore/QStringList>
#include <functional>
#include <memory>

namespace graft::cli {

// 3: compare only, the outputs are equal but an intermediate is beyond tolerance (--per-node).
enum ExitCode { kOk = 0, kAnswerNo = 1, kUsageOrInput = 2, kIntermediateDiffers = 3 };

struct Command {
  QString name;
  QString summary;
  QString usage;  // e.g. "MODEL [--json]"
  std::function<int(const QStringList& arguments)> run;
};

// Adds --json, --sample NAME, --no-freeze and --threads N to a subcommand's parser.
void addModelOptions(QCommandLineParser& parser);

// --threads for a job on a remote host: N as given (openModel has checked it), 0 for the host's
// own default.
int hostThreads(const QCommandLineParser& parser);

// Parses `arguments` (argv without the program and subcommand name); on --help prints help and
// exits 0; on an error prints it and returns false.
bool parseOrExit(QCommandLineParser& parser, const Command& command, const QStringList& arguments);

// Opens the MODEL of a parsed command line: `--sample NAME` or the positional file at `index`.
// On failure prints the load error (one line headline on stderr) and returns nullptr.
std::unique_ptr<core::model::Document> openModel(const QCommandLineParser& parser, int index = 0);

// The --input option, one help text for every command that runs a model.
void addInputOption(QCommandLineParser& parser);

// The inputs of a run: the --input specs, else the model's defaults (io::inputsFor). On failure
// prints why (naming --input where the model records no shape) and returns nullopt.
std::optional<core::model::InputSet> inputsOrFail(const QCommandLineParser& parser, const core::model::Document& doc,
                                                quint64 seed);

// Diagnostics: each is printed on stderr as it is reported, one line "graft-cli: error: message
// (hint)", and kept for the JSON output (printJson adds `diagnostics[]`). The command's job
// ("load", "compare", ...) names the diagnostics fail() makes.
void setCommandJob(const QString& job);
QString commandJob();
void report(const core::model::Diagnostic& diagnostic);
void report(const core::model::Diagnostics& diagnostics);
const core::model::Diagnostics& reported();
// Whether printJson has written this command's JSON.
bool jsonPrinted();

// Reports an error of the command's job and returns kUsageOrInput.
// Whether two paths name one file (through symlinks where both exist): an output that would
// overwrite an input model is refused with it.
bool samePath(const QString& a, const QString& b);

int fail(const QString& message, const QString& hint = {});

// The files a command reads: its positional arguments and the values of --against, --input
// (NAME=SPEC's SPEC) and --rule, where they name files.
QStringList inputFiles(const QCommandLineParser& parser);
// Whether `out` may be written under the output policy (core/io/file_policy.h): not a device, a
// pipe or a folder, and none of inputFiles(parser). Reports why not and returns false.
bool outputAllowed(const QCommandLineParser& parser, const QString& out);
// The rule for output files, as every command that writes one states it in its --help.
QString outputRule();
// Reports `diagnostics` and returns kUsageOrInput.
int fail(const core::model::Diagnostics& diagnostics);
// Prints `object` with `diagnostics[]` (everything reported so far) added.
void printJson(const QJsonObject& object);
void printText(const QString& text);

}  // namespace graft::cli
