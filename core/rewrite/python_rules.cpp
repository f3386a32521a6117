#include "core/rewrite/python_rules.h"

#include "core/io/file_policy.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/rewrite/python_worker.h"
#include "core/rewrite/rule_parser.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <ATen/Parallel.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QStandardPaths>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>

#include <dlfcn.h>

#include <map>
#include <set>
#include <unordered_map>

namespace graft::core::rewrite {

namespace {

RuleError errorAt(const QString& file, int line, const QString& message) { return RuleError{file, line, 0, message}; }

// The line of `file` a Python stack dump (faulthandler, a traceback) was last in, 0 if none.
int lastLineIn(const QString& dump, const QString& file) {
  static const QRegularExpression frame(QStringLiteral(R"re(File "([^"]+)", line (\d+))re"));
  const QString want = QFileInfo(file).canonicalFilePath();
  int line = 0;
  // faulthandler lists the innermost frame first: the first hit is where it was.
  for (auto it = frame.globalMatch(dump); it.hasNext();) {
    const auto m = it.next();
    if (QFileInfo(m.captured(1)).canonicalFilePath() == want) return m.captured(2).toInt();
  }
  return line;
}

// The end of a text file the child wrote (at most 64 KiB), empty unless it is a regular file.
QString tailOf(const QString& path) {
  if (!io::checkInputFile(path, QStringLiteral("Python output")).isEmpty()) return {};
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  if (f.size() > 65536) f.seek(f.size() - 65536);
  return QString::fromUtf8(f.read(65536)).trimmed();
}

bool writeResource(const QString& from, const QString& to) {
  QFile in(from);
  if (!in.open(QIODevice::ReadOnly)) return false;
  QFile out(to);
  if (!out.open(QIODevice::WriteOnly)) return false;
  return out.write(in.readAll()) >= 0;
}

bool isTensorType(const c10::TypePtr& t) { return t->cast<c10::TensorType>() != nullptr; }

// The graph as rule IR: module input dropped, inputs named after the function's arguments, tensor
// types plain (a pattern matches values of any shape), no dead code.
QString cleanIr(std::shared_ptr<torch::jit::Graph> g, const QStringList& args, QString& error, QVector<int>* ranks,
                QStringList* sizedInputs) {
  if (!g->inputs().empty() && g->inputs()[0]->type()->cast<c10::ClassType>()) {
    if (g->inputs()[0]->hasUses()) {
      error = QStringLiteral("the function reads module state");
      return {};
    }
    g->eraseInput(0);
  }
  if (g->inputs().size() != size_t(args.size())) {
    error =
        QStringLiteral("the graph takes %1 inputs for %2 arguments (arguments that are not tensors are not supported)")
            .arg(g->inputs().size())
            .arg(args.size());
    return {};
  }
  if (g->outputs().size() != 1 || !isTensorType(g->outputs()[0]->type())) {
    error = QStringLiteral("the function must return one tensor");
    return {};
  }
  if (g->outputs()[0]->node()->kind() == c10::prim::Param) {
    error = QStringLiteral("the function returns one of its arguments unchanged: there is no operation to match");
    return {};
  }
  for (size_t i = 0; i < g->inputs().size(); ++i) {
    torch::jit::Value* in = g->inputs()[i];
    if (ranks) {
      auto t = in->type()->cast<c10::TensorType>();
      ranks->push_back(t && t->dim() ? int(*t->dim()) : -1);
    }
    if (sizedInputs) {
      for (const auto& use : in->uses()) {
        const std::string kind = use.user->kind().toQualString();
        if (kind == "aten::size" || kind == "aten::sym_size" || kind == "aten::dim" || kind == "aten::numel") {
          sizedInputs->push_back(args[qsizetype(i)]);
          break;
        }
      }
    }
    in->setDebugName(args[qsizetype(i)].toStdString());
  }
  // A trace records Python numbers as 0-dim tensor constants (`var + 1e-5`): written as scalars,
  // the op takes its Scalar overload, which computes the same.
  std::vector<torch::jit::Node*> scalars;
  for (torch::jit::Node* n : g->nodes())
    if (n->kind() == c10::prim::Constant && n->outputs().size() == 1 && isTensorType(n->output()->type()))
      if (auto iv = torch::jit::toIValue(n->output()); iv && iv->isTensor() && iv->toTensor().dim() == 0)
        scalars.push_back(n);
  for (torch::jit::Node* n : scalars) {
    const at::Tensor t = torch::jit::toIValue(n->output())->toTensor();
    torch::jit::WithInsertPoint guard(n);
    torch::jit::Value* s = t.is_floating_point() ? g->insertConstant(t.item<double>())
                           : t.scalar_type() == at::kBool ? g->insertConstant(t.item<bool>())
                                                          : g->insertConstant(t.item<int64_t>());
    n->output()->replaceAllUsesWith(s);
    n->destroy();
  }
  torch::jit::EliminateDeadCode(g);
  std::function<void(torch::jit::Block*)> plain = [&](torch::jit::Block* b) {
    for (torch::jit::Value* v : b->inputs())
      if (isTensorType(v->type())) v->setType(c10::TensorType::get());
    for (torch::jit::Node* n : b->nodes()) {
      if (n->kind() == c10::prim::Constant && !n->outputs().empty() && isTensorType(n->output()->type()) &&
          n->hasAttribute(torch::jit::attr::value)) {
        error =
            QStringLiteral("the function holds a tensor constant (%1): compute it from the arguments or pass it as one")
                .arg(QString::fromStdString(n->output()->debugName()));
        return;
      }
      for (torch::jit::Value* v : n->outputs())
        if (isTensorType(v->type())) v->setType(c10::TensorType::get());
      for (auto* sub : n->blocks()) plain(sub);
    }
  };
  plain(g->block());
  if (!error.isEmpty()) return {};
  return QString::fromStdString(g->toString(false));
}

QString quoteCondition(const QString& c) { return c.simplified(); }

// A constant as a condition's literal (rule_parser's `%v == LITERAL`), empty when it has none.
QString literalOf(const c10::IValue& v) {
  if (v.isNone()) return QStringLiteral("None");
  if (v.isBool()) return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
  if (v.isInt()) return QString::number(v.toInt());
  if (v.isDouble()) return QString::number(v.toDouble(), 'g', 17);
  if (v.isIntList()) {
    QStringList items;
    for (auto i : v.toIntVector()) items << QString::number(i);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  return {};
}

// A model's frozen graph shares its constants (one `false` for every batch_norm), and the
// subgraph matcher refuses a pattern node whose value is used outside the match: so the pattern's
// constants become inputs with an `==` condition each, as hand-written rules do (`%train == false`),
// and the replacement takes the same inputs (unused).
}  // namespace

void liftPatternConstants(QString& pattern, QString& replacement, QStringList& conditions) {
  auto pg = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(pattern.toStdString(), pg.get());
  auto rg = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(replacement.toStdString(), rg.get());
  std::vector<torch::jit::Node*> lifted;
  int k = 0;
  for (torch::jit::Node* n : pg->nodes()) {
    if (n->kind() != c10::prim::Constant || n->outputs().size() != 1) continue;
    const auto iv = torch::jit::toIValue(n->output());
    if (!iv) continue;
    const QString literal = literalOf(*iv);
    if (literal.isEmpty()) continue;
    QString name;
    do name = QStringLiteral("c%1").arg(k++);
    while (std::any_of(pg->inputs().begin(), pg->inputs().end(),
                       [&](const torch::jit::Value* v) { return v->debugName() == name.toStdString(); }));
    torch::jit::Value* in = pg->addInput();
    in->setType(n->output()->type());
    n->output()->replaceAllUsesWith(in);
    in->setDebugName(name.toStdString());
    rg->addInput()->setType(n->output()->type());
    rg->inputs().back()->setDebugName(name.toStdString());
    conditions << QStringLiteral("%%1 == %2").arg(name, literal);
    lifted.push_back(n);
  }
  for (torch::jit::Node* n : lifted) n->destroy();
  if (lifted.empty()) return;
  pattern = QString::fromStdString(pg->toString(false));
  replacement = QString::fromStdString(rg->toString(false));
}

namespace {

// A trace writes a list argument ([1, 1] strides) as a ListConstruct of int constants, where a
// frozen TorchScript model holds one int[] constant: the pattern's lists of constants become
// constants too, so they match (and are lifted into `==` conditions like any constant).
QString foldConstantLists(const QString& ir) {
  auto g = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir.toStdString(), g.get());
  std::vector<torch::jit::Node*> lists;
  for (torch::jit::Node* n : g->nodes()) {
    if (n->kind() != c10::prim::ListConstruct || n->inputs().empty()) continue;
    if (!n->output()->type()->isSubtypeOf(*c10::ListType::ofInts())) continue;
    const bool allConstant = std::all_of(n->inputs().begin(), n->inputs().end(), [](torch::jit::Value* v) {
      return v->node()->kind() == c10::prim::Constant && v->type()->kind() == c10::TypeKind::IntType;
    });
    if (allConstant) lists.push_back(n);
  }
  if (lists.empty()) return ir;
  for (torch::jit::Node* n : lists) {
    std::vector<int64_t> items;
    for (torch::jit::Value* v : n->inputs()) items.push_back(torch::jit::toIValue(v)->toInt());
    torch::jit::WithInsertPoint guard(n);
    n->output()->replaceAllUsesWith(g->insertConstant(items));
    n->destroy();
  }
  torch::jit::EliminateDeadCode(g);
  return QString::fromStdString(g->toString(false));
}

// A text rule assembled from the two IR texts, parsed back by the text-rule parser so that the
// same checks apply. Problems are reported at `line` of the Python file.
std::optional<Rule> makeRule(const QString& file, const QJsonObject& r, const QString& patternIn,
                             const QString& replacementIn, const QStringList& extraConditionsIn, RuleError& error) {
  const QString name = r.value(QLatin1String("name")).toString();
  QString pattern = patternIn, replacement = replacementIn;
  QStringList extraConditions = extraConditionsIn;
  try {
    liftPatternConstants(pattern, replacement, extraConditions);
  } catch (const std::exception& e) {
    error = errorAt(file, r.value(QLatin1String("line")).toInt(),
                    QStringLiteral("rule '%1': %2").arg(name, QString::fromUtf8(e.what())));
    return std::nullopt;
  }
  const QString description = r.value(QLatin1String("description")).toString().simplified();
  QString text = QStringLiteral("id: %1\ntitle: %2\n").arg(name, description.isEmpty() ? name : description);
  if (!description.isEmpty()) text += QStringLiteral("description: %1\n").arg(description);
  text += QStringLiteral("[pattern]\n") + pattern;
  if (!text.endsWith(QLatin1Char('\n'))) text += QLatin1Char('\n');
  text += QStringLiteral("[replacement]\n") + replacement;
  if (!text.endsWith(QLatin1Char('\n'))) text += QLatin1Char('\n');
  QStringList conditions;
  for (const auto& c : r.value(QLatin1String("condition")).toArray()) conditions << quoteCondition(c.toString());
  conditions << extraConditions;
  if (!conditions.isEmpty())
    text += QStringLiteral("[condition]\n") + conditions.join(QLatin1Char('\n')) + QLatin1Char('\n');
  auto parsed = parseRule(text, file);
  const int line = r.value(QLatin1String("line")).toInt();
  if (!parsed.ok()) {
    error = errorAt(file, line, QStringLiteral("rule '%1': %2").arg(name, parsed.error.message));
    return std::nullopt;
  }
  parsed.rule.patternLine = line;
  parsed.rule.replacementLine = r.value(QLatin1String("replacement_line")).toInt();
  return parsed.rule;
}

QString torchLibraryPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&at::get_num_threads), &info) && info.dli_fname)
    return QString::fromLocal8Bit(info.dli_fname);
  return {};
}

}  // namespace

bool isPythonRuleFile(const QString& spec) { return spec.endsWith(QLatin1String(".py"), Qt::CaseInsensitive); }

namespace {

// The Python of the environment whose torch wheel this process's libtorch comes from:
// <env>/lib/pythonX.Y/site-packages/torch/lib/libtorch_cpu.so → <env>/bin/pythonX.Y (a venv, conda,
// /usr with dist-packages), else pythonX.Y on PATH (a user install in ~/.local). Empty when none.
QString interpreterBesideTorch() {
  const QString lib = torchLibraryPath();
  if (lib.isEmpty()) return {};
  QDir dir = QFileInfo(lib).absoluteDir();  // torch/lib
  if (!dir.cdUp() || dir.dirName() != QLatin1String("torch")) return {};
  if (!dir.cdUp()) return {};  // site-packages or dist-packages
  if (!dir.cdUp()) return {};  // pythonX.Y (Debian: python3)
  const QString version = dir.dirName();
  if (!version.startsWith(QLatin1String("python"))) return {};
  if (!dir.cdUp() || !dir.cdUp()) return {};  // lib, then the environment
  QStringList names{version, QStringLiteral("python3"), QStringLiteral("python")};
  names.removeDuplicates();
  for (const QString& name : names) {
    const QString candidate = dir.filePath(QStringLiteral("bin/") + name);  // a venv's python is a link: kept as is
    if (QFileInfo(candidate).isFile() && QFileInfo(candidate).isExecutable()) return candidate;
  }
  return QStandardPaths::findExecutable(version);
}

}  // namespace

QString pythonInterpreter() {
  if (const QString env = qEnvironmentVariable("GRAFT_PYTHON"); !env.isEmpty()) return env;
  // The installed launcher names the Python it found torch through.
  if (const QString launcher = qEnvironmentVariable("GRAFT_TORCH_PYTHON"); !launcher.isEmpty()) return launcher;
  if (const QString beside = interpreterBesideTorch(); !beside.isEmpty()) return beside;
  return QStringLiteral("python3");
}

int pythonTimeoutSeconds() {
  bool ok = false;
  const int s = qEnvironmentVariableIntValue("GRAFT_PYTHON_TIMEOUT", &ok);
  return ok && s > 0 ? s : 120;
}

QJsonObject runPythonChild(const QString& mode, const QString& path, const QString& workDir, const QJsonObject& request,
                           RuleError& error, const std::atomic<bool>* cancel) {
  const bool module = mode == QLatin1String("module");
  const QString what = module ? QStringLiteral("module file") : QStringLiteral("rule file");
  const auto failAt = [&](int line, const QString& message, const QString& hint = {}) {
    error = errorAt(path, line, message);
    error.hint = hint;
    return QJsonObject();
  };
  if (!QFileInfo(path).isFile()) return failAt(0, QStringLiteral("no such %1").arg(what));
  const QString out = QDir(workDir).filePath(QStringLiteral("out"));
  QDir().mkpath(out);
  PythonJob job;
  job.mode = mode;
  job.path = QFileInfo(path).absoluteFilePath();
  job.outDir = out;
  job.timeoutSeconds = pythonTimeoutSeconds();
  job.cancel = cancel;
  if (!request.isEmpty()) {
    job.requestFile = QDir(workDir).filePath(QStringLiteral("request.json"));
    QFile f(job.requestFile);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(request).toJson(QJsonDocument::Compact)) < 0)
      return failAt(0, QStringLiteral("cannot write %1").arg(job.requestFile));
  }
  const PythonJobEnd end = runPythonJob(job);
  using How = PythonJobEnd::How;
  if (end.how == How::Cancelled) return failAt(0, QStringLiteral("cancelled"));
  if (end.how == How::Failed)
    return failAt(0, QStringLiteral("cannot run the %1: %2").arg(what, end.error), end.hint);
  // The result is read like any input file: a regular file, bounded (never a link to a device).
  const QString resultFile = QDir(out).filePath(QStringLiteral("result.json"));
  if (end.how == How::Finished && QFileInfo::exists(resultFile)) {
    QString why;
    const auto bytes = io::readInputFile(resultFile, io::kMaxTextFileBytes, QStringLiteral("Python result"), &why);
    if (!bytes) return failAt(0, QStringLiteral("the %1's result cannot be read: %2").arg(what, why));
    QJsonParseError parse{};
    const QJsonObject json = QJsonDocument::fromJson(*bytes, &parse).object();
    if (parse.error != QJsonParseError::NoError)
      return failAt(0, QStringLiteral("the %1's result is not JSON: %2").arg(what, parse.errorString()));
    if (json.contains(QLatin1String("error"))) {
      const QJsonObject e = json.value(QLatin1String("error")).toObject();
      return failAt(e.value(QLatin1String("line")).toInt(), e.value(QLatin1String("message")).toString());
    }
    return json;
  }
  const QString dump = tailOf(QDir(out).filePath(QStringLiteral("timeout.txt")));
  if (end.how == How::TimedOut || dump.contains(QLatin1String("Timeout")))
    return failAt(lastLineIn(dump, path),
                  QStringLiteral("the %1 did not finish within %2 s (an endless loop?); it was stopped")
                      .arg(what)
                      .arg(job.timeoutSeconds),
                  QStringLiteral("GRAFT_PYTHON_TIMEOUT=SECONDS sets the limit."));
  const QString output = tailOf(QDir(out).filePath(QStringLiteral("output.txt")));
  const QStringList tail = output.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  const QString ended = end.signal ? QStringLiteral("was ended by signal %1").arg(end.signal)
                                   : QStringLiteral("exited with code %1").arg(end.exitCode);
  return failAt(
      lastLineIn(output, path),
      QStringLiteral("Python (%1) %2 before it finished the %3%4")
          .arg(end.python, ended, what, tail.isEmpty() ? QString() : QStringLiteral(": ") + tail.last().trimmed()),
      QStringLiteral(
          "Run the %1 with that Python to see the whole error; GRAFT_PYTHON=/path/to/python chooses another Python.")
          .arg(what));
}

QString pt2FunctionIr(const QString& file, const QStringList& args, QString& error, QVector<int>* ranks,
                      QStringList* sizedInputs) {
  auto loaded = io::loadFile(file);
  if (!loaded.ok()) {
    error = QStringLiteral("Graft cannot read the exported function: %1").arg(loaded.error.headline);
    return {};
  }
  try {
    return cleanIr(loaded.document->current()->graph()->copy(), args, error, ranks, sizedInputs);
  } catch (const c10::Error& e) {
    error = QString::fromStdString(e.what_without_backtrace());
  } catch (const std::exception& e) {
    error = QString::fromUtf8(e.what());
  }
  return {};
}

QString tsFunctionIr(const QString& ir, const QStringList& args, QString& error) {
  try {
    auto g = std::make_shared<torch::jit::Graph>();
    torch::jit::parseIR(ir.toStdString(), g.get(), true);
    return cleanIr(g, args, error, nullptr, nullptr);
  } catch (const c10::Error& e) {
    error = QString::fromStdString(e.what_without_backtrace());
  } catch (const std::exception& e) {
    error = QString::fromUtf8(e.what());
  }
  return {};
}

PythonRuleSet compilePythonRules(const QString& path, const QJsonObject& siteRanks, const std::atomic<bool>* cancel) {
  PythonRuleSet set;
  set.file = path;
  QTemporaryDir work;
  if (!work.isValid()) {
    set.error = errorAt(path, 0, QStringLiteral("cannot make a temporary folder: %1").arg(work.errorString()));
    return set;
  }
  // A shipped rule file (qrc) runs from a copy; its messages still name the shipped file.
  QString runPath = path;
  if (path.startsWith(QLatin1String(":/"))) {
    QDir().mkpath(work.filePath(QStringLiteral("src")));
    runPath = work.filePath(QStringLiteral("src/") + QFileInfo(path).fileName());
    if (!writeResource(path, runPath)) {
      set.error = errorAt(path, 0, QStringLiteral("cannot copy the shipped rule file to %1").arg(runPath));
      return set;
    }
  }
  QJsonObject request;
  if (!siteRanks.isEmpty()) request.insert(QStringLiteral("site_ranks"), siteRanks);
  const QJsonObject json = runPythonChild(QStringLiteral("rules"), runPath, work.path(), request, set.error, cancel);
  if (set.error.isError()) {
    set.error.file = path;
    return set;
  }
  for (const auto& item : json.value(QLatin1String("rules")).toArray()) {
    const QJsonObject r = item.toObject();
    const QString name = r.value(QLatin1String("name")).toString();
    QStringList args;
    for (const auto& a : r.value(QLatin1String("args")).toArray()) args << a.toString();
    auto fail = [&](const char* what, int line, const QString& why) {
      set.error = errorAt(path, line, QStringLiteral("rule '%1': the %2 %3").arg(name, QLatin1String(what), why));
    };
    const int patternLine = r.value(QLatin1String("line")).toInt();
    const int replacementLine = r.value(QLatin1String("replacement_line")).toInt();
    // TorchScript form.
    QString why;
    QString tsPattern, tsReplacement;
    QVector<int> ranks;
    QStringList sized;
    try {
      auto pg = std::make_shared<torch::jit::Graph>();
      torch::jit::parseIR(r.value(QLatin1String("ts_pattern")).toString().toStdString(), pg.get(), true);
      tsPattern = cleanIr(pg, args, why, nullptr, nullptr);
      if (tsPattern.isEmpty()) return fail("pattern", patternLine, QStringLiteral("as TorchScript: ") + why), set;
      auto rg = std::make_shared<torch::jit::Graph>();
      torch::jit::parseIR(r.value(QLatin1String("ts_replacement")).toString().toStdString(), rg.get(), true);
      // A traced replacement computes sizes for the example's rank only.
      const bool traced = r.value(QLatin1String("ts_replacement_how")).toString() == QLatin1String("trace");
      tsReplacement = cleanIr(rg, args, why, &ranks, traced ? &sized : nullptr);
      if (tsReplacement.isEmpty())
        return fail("replacement", replacementLine, QStringLiteral("as TorchScript: ") + why), set;
    } catch (const std::exception& e) {
      return fail("function", patternLine,
                  QStringLiteral("gave TorchScript IR Graft cannot read: %1").arg(QString::fromUtf8(e.what()))),
             set;
    }
    auto rankConditions = [&](const QStringList& inputs, const QVector<int>& rk) {
      QStringList out;
      for (const QString& in : inputs) {
        const int i = int(args.indexOf(in));
        if (i >= 0 && i < rk.size() && rk[i] >= 0) out << QStringLiteral("%%1 rank %2").arg(in).arg(rk[i]);
      }
      return out;
    };
    try {
      tsPattern = foldConstantLists(tsPattern);
    } catch (const std::exception& e) {
      return fail("pattern", patternLine, QStringLiteral("as TorchScript: %1").arg(QString::fromUtf8(e.what()))), set;
    }
    auto ts = makeRule(path, r, tsPattern, tsReplacement, rankConditions(sized, ranks), set.error);
    if (!ts) return set;
    set.torchscript.push_back(*ts);
    // torch.export form: the exported programs read by Graft's .pt2 import.
    const QString pattern = pt2FunctionIr(r.value(QLatin1String("pt2_pattern")).toString(), args, why);
    if (pattern.isEmpty())
      return fail("pattern", patternLine, QStringLiteral("as a torch.export program: ") + why), set;
    QVector<int> pt2Ranks;
    QStringList pt2Sized;
    const QString replacement =
        pt2FunctionIr(r.value(QLatin1String("pt2_replacement")).toString(), args, why, &pt2Ranks, &pt2Sized);
    if (replacement.isEmpty())
      return fail("replacement", replacementLine, QStringLiteral("as a torch.export program: ") + why), set;
    // Exported size computations hold for the example's rank only: the rule asks for it.
    auto pt2 = makeRule(path, r, pattern, replacement, rankConditions(pt2Sized, pt2Ranks), set.error);
    if (!pt2) return set;
    set.pt2.push_back(*pt2);
    // The child exported such a replacement again at other ranks of its first sized argument:
    // one rule per rank, each asking for its rank, so the rule covers them all.
    for (const auto& v : r.value(QLatin1String("pt2_variants")).toArray()) {
      QVector<int> vRanks;
      QStringList vSized;
      const QString vReplacement =
          pt2FunctionIr(v.toObject().value(QLatin1String("file")).toString(), args, why, &vRanks, &vSized);
      if (vReplacement.isEmpty()) continue;
      auto variant = makeRule(path, r, pattern, vReplacement, rankConditions(vSized, vRanks), set.error);
      if (!variant) return set;
      set.pt2.push_back(*variant);
    }
  }
  if (set.torchscript.isEmpty()) set.error = errorAt(path, 1, QStringLiteral("the file defines no rules"));
  return set;
}

}  // namespace graft::core::rewrite

namespace graft::core::rewrite {

namespace {

// Ops whose tensor result has the rank of their first tensor input (elementwise, normalisation,
// pooling, convolution, linear, casts), and those taking the largest of their inputs' (broadcast).
bool keepsRank(const std::string& op) {
  static const std::set<std::string> ops{
      "relu", "relu_", "gelu", "silu", "silu_", "sigmoid", "tanh", "hardtanh", "hardtanh_", "hardswish", "hardswish_",
      "hardsigmoid", "dropout", "batch_norm", "layer_norm", "group_norm", "conv1d", "conv2d", "conv3d", "convolution",
      "_convolution", "linear", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
      "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "softmax", "log_softmax", "clamp",
      "clamp_min", "contiguous", "to", "_to_copy", "type_as", "neg", "exp", "rsqrt", "sqrt", "transpose", "permute",
      "leaky_relu", "elu", "_native_batch_norm_legit_no_training", "native_layer_norm", "clone", "detach", "pow"};
  return ops.count(op) > 0;
}
bool broadcasts(const std::string& op) {
  static const std::set<std::string> ops{"add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "matmul", "where",
                                         "maximum", "minimum"};
  return ops.count(op) > 0;
}

}  // namespace

QJsonObject siteRanks(const model::Revision& revision, const QVector<int>& inputRanks) {
  std::unordered_map<const torch::jit::Value*, int> rank;
  const auto rankOf = [&](const torch::jit::Value* v) -> int {
    if (auto it = rank.find(v); it != rank.end()) return it->second;
    if (auto t = v->type()->cast<c10::TensorType>(); t && t->dim()) return int(*t->dim());
    if (v->node()->kind() == c10::prim::Constant)
      if (auto iv = torch::jit::toIValue(v); iv && iv->isTensor()) return int(iv->toTensor().dim());
    return -1;
  };
  auto graph = revision.graph();
  const size_t skip = !graph->inputs().empty() && graph->inputs()[0]->type()->cast<c10::ClassType>() ? 1 : 0;
  for (size_t i = skip; i < graph->inputs().size(); ++i)
    if (const qsizetype k = qsizetype(i - skip); k < inputRanks.size() && inputRanks[k] >= 0)
      rank[graph->inputs()[i]] = inputRanks[k];
  // Per op kind and input position: how often each rank feeds it.
  std::map<std::string, std::vector<std::map<int, int>>> seen;
  std::map<std::string, std::vector<std::string>> names;
  for (torch::jit::Node* n : graph->nodes()) {  // top level: enough to tell the ranks an op sees
    if (n->kind().is_prim()) continue;
    const std::string kind = n->kind().toQualString();
    const auto* schema = n->maybeSchema();
    auto& counts = seen[kind];
    if (counts.size() < n->inputs().size()) counts.resize(n->inputs().size());
    auto& argNames = names[kind];
    int first = -1, widest = -1;
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      if (argNames.size() <= i)
        argNames.push_back(schema && i < schema->arguments().size() ? schema->arguments()[i].name() : std::string());
      const int r = rankOf(n->input(i));
      if (r >= 0) {
        ++counts[i][r];
        if (first < 0) first = r;
        widest = std::max(widest, r);
      }
    }
    // A convolution's input has its weight's rank.
    const std::string op = n->kind().toUnqualString();
    if ((op.rfind("conv", 0) == 0 || op == "_convolution") && n->inputs().size() > 1 && rankOf(n->input(0)) < 0 &&
        rankOf(n->input(1)) >= 0) {
      first = rankOf(n->input(1));
      ++counts[0][first];
    }
    if (n->outputs().size() == 1 && n->output()->type()->cast<c10::TensorType>() && rankOf(n->output()) < 0) {
      if (keepsRank(op) && first >= 0) rank[n->output()] = first;
      else if (broadcasts(op) && widest >= 0) rank[n->output()] = widest;
      else if (op == "addmm" || op == "mm" || op == "t") rank[n->output()] = 2;
      else if ((op == "reshape" || op == "view") && n->inputs().size() > 1 &&
               n->input(1)->node()->kind() == c10::prim::ListConstruct)
        rank[n->output()] = int(n->input(1)->node()->inputs().size());
      else if (op == "flatten" && first >= 0 && n->inputs().size() == 3) {
        auto s = torch::jit::toIValue(n->input(1)), e = torch::jit::toIValue(n->input(2));
        if (s && e && s->isInt() && e->isInt()) {
          const int64_t a = s->toInt() < 0 ? s->toInt() + first : s->toInt(),
                        b = e->toInt() < 0 ? e->toInt() + first : e->toInt();
          rank[n->output()] = int(first - (b - a));
        }
      }
    }
  }
  QJsonObject out;
  for (const auto& [kind, counts] : seen) {
    QJsonArray positions;
    QJsonObject byName;
    bool any = false;
    for (size_t i = 0; i < counts.size(); ++i) {
      int best = -1, most = 0;
      for (const auto& [r, c] : counts[i])
        if (c > most) best = r, most = c;
      positions.append(best);
      if (best >= 0) {
        any = true;
        const std::string& name = names[kind][i];
        if (!name.empty()) byName.insert(QString::fromStdString(name), best);
      }
    }
    if (any) out.insert(QString::fromStdString(kind), QJsonObject{{"positions", positions}, {"names", byName}});
  }
  return out;
}

QJsonObject siteRanks(const model::Document& document) {
  QVector<int> inputRanks;
  const auto inputs =
      document.exampleInputs() ? io::InputResult{*document.exampleInputs(), {}} : io::defaultInputs(document, 0);
  if (inputs.inputs)
    for (const auto& v : inputs.inputs->values) inputRanks << (v.isTensor() ? int(v.toTensor().dim()) : -1);
  return siteRanks(*document.current(), inputRanks);
}

}  // namespace graft::core::rewrite
