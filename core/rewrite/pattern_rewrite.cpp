#include "core/rewrite/pattern_rewrite.h"

#include "core/model/dtype_names.h"
#include "core/model/module_path.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/ir/subgraph_matcher.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <QtCore/QRegularExpression>

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace graft::core::rewrite {

using torch::jit::Match;
using torch::jit::Node;
using torch::jit::Value;

namespace {

QString opName(const Node* n) { return QString::fromStdString(n->kind().toQualString()); }

bool literalEquals(const c10::IValue& v, const QString& literal) {
  const QString lit = literal.trimmed();
  if (lit == QLatin1String("None")) return v.isNone();
  if (lit == QLatin1String("true") || lit == QLatin1String("True")) return v.isBool() && v.toBool();
  if (lit == QLatin1String("false") || lit == QLatin1String("False")) return v.isBool() && !v.toBool();
  if (lit.size() >= 2 && (lit.startsWith(QLatin1Char('"')) || lit.startsWith(QLatin1Char('\''))))
    return v.isString() && QString::fromStdString(v.toStringRef()) == lit.mid(1, lit.size() - 2);
  if (lit.startsWith(QLatin1Char('[')) && lit.endsWith(QLatin1Char(']'))) {
    if (!v.isIntList()) return false;
    const auto have = v.toIntVector();
    const QStringList items = lit.mid(1, lit.size() - 2).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (items.size() != qsizetype(have.size())) return false;
    for (qsizetype i = 0; i < items.size(); ++i) {
      bool isInt = false;
      if (items[i].trimmed().toLongLong(&isInt) != have[size_t(i)] || !isInt) return false;
    }
    return true;
  }
  bool ok = false;
  const double d = lit.toDouble(&ok);
  if (!ok) return false;
  if (v.isInt()) return double(v.toInt()) == d;
  if (v.isDouble()) return v.toDouble() == d;
  if (v.isBool()) return double(v.toBool()) == d;
  return false;
}

// The dtype and rank of a value: from its tensor type, or from the tensor when it is a constant.
std::optional<c10::ScalarType> dtypeOf(Value* v) {
  if (auto t = v->type()->cast<c10::TensorType>(); t && t->scalarType()) return *t->scalarType();
  if (auto iv = torch::jit::toIValue(v); iv && iv->isTensor()) return iv->toTensor().scalar_type();
  return std::nullopt;
}
std::optional<int64_t> rankOf(Value* v) {
  if (auto iv = torch::jit::toIValue(v); iv && iv->isTensor()) return iv->toTensor().dim();
  if (auto t = v->type()->cast<c10::TensorType>(); t && t->dim()) return int64_t(*t->dim());
  return std::nullopt;
}

// Nodes gathered from a map hashed on addresses, put in graph order: what is listed or named
// first is then the same every run.
void sortInGraphOrder(std::vector<Node*>& nodes) {
  std::sort(nodes.begin(), nodes.end(), [](const Node* a, const Node* b) { return a->isBefore(b); });
}

// The matched nodes other than constants, in graph order.
std::vector<Node*> matchedOps(const Match& m) {
  std::vector<Node*> ops;
  for (const auto& [p, g] : m.nodes_map)
    if (g->kind() != c10::prim::Constant) ops.push_back(g);
  sortInGraphOrder(ops);
  return ops;
}

// Empty when every condition holds, else why the first one failed.
QString failedCondition(const Rule& rule, const Match& match,
                        const std::unordered_map<std::string, Value*>& vmap, const PathOf& pathOf) {
  for (const Condition& c : rule.conditions) {
    if (c.kind == Condition::Kind::ModuleGlob) {
      const QRegularExpression re(QRegularExpression::wildcardToRegularExpression(c.expected));
      for (Node* gn : matchedOps(match)) {
        const QString path = pathOf ? pathOf(gn) : model::modulePath(gn);
        if (!re.match(path).hasMatch())
          return QStringLiteral("condition `%1` failed: %2 is in module '%3'").arg(c.text, opName(gn), path);
      }
      continue;
    }
    auto pv = vmap.find(c.value.toStdString());
    if (pv == vmap.end())
      return QStringLiteral("condition `%1` names %%2, which the pattern lacks").arg(c.text, c.value);
    auto gv = match.values_map.find(pv->second);
    if (gv == match.values_map.end()) return QStringLiteral("condition `%1`: %%2 is not bound").arg(c.text, c.value);
    Value* v = gv->second;
    switch (c.kind) {
      case Condition::Kind::ConstEquals: {
        auto iv = torch::jit::toIValue(v);
        if (!iv) return QStringLiteral("condition `%1` failed: %%2 is not a constant").arg(c.text, c.value);
        if (!literalEquals(*iv, c.expected)) {
          std::ostringstream os;
          os << *iv;
          return QStringLiteral("condition `%1` failed: %%2 is %3")
              .arg(c.text, c.value, QString::fromStdString(os.str()));
        }
        break;
      }
      case Condition::Kind::NotEquals: {
        // A value computed at run time is "not equal" unless its type says it must be None.
        auto iv = torch::jit::toIValue(v);
        const bool equal =
            iv ? literalEquals(*iv, c.expected)
               : c.expected.trimmed() == QLatin1String("None") && v->type()->kind() == c10::TypeKind::NoneType;
        if (equal) return QStringLiteral("condition `%1` failed: %%2 is %3").arg(c.text, c.value, c.expected.trimmed());
        break;
      }
      case Condition::Kind::DType: {
        const auto want = model::dtypeFromName(c.expected);
        const auto have = dtypeOf(v);
        if (!want) return QStringLiteral("condition `%1`: unknown dtype '%2'").arg(c.text, c.expected);
        if (!have) return QStringLiteral("condition `%1` failed: the dtype of %%2 is unknown").arg(c.text, c.value);
        if (*have != *want)
          return QStringLiteral("condition `%1` failed: %%2 is %3")
              .arg(c.text, c.value, QString::fromLatin1(c10::toString(*have)));
        break;
      }
      case Condition::Kind::Rank: {
        const auto have = rankOf(v);
        if (!have) return QStringLiteral("condition `%1` failed: the rank of %%2 is unknown").arg(c.text, c.value);
        if (*have != c.expected.toLongLong())
          return QStringLiteral("condition `%1` failed: %%2 has rank %3").arg(c.text, c.value).arg(*have);
        break;
      }
      case Condition::Kind::ModuleGlob: break;
    }
  }
  return {};
}

// Does `g` have the pattern's shape when uses outside are ignored? Fills node pairs.
bool looksLike(Node* p, Node* g, std::unordered_map<Node*, Node*>& pairs) {
  if (p->kind() != g->kind() || p->inputs().size() != g->inputs().size() ||
      p->outputs().size() != g->outputs().size())
    return false;
  if (auto it = pairs.find(p); it != pairs.end()) return it->second == g;
  pairs[p] = g;
  for (size_t i = 0; i < p->inputs().size(); ++i) {
    Value* pv = p->input(i);
    Value* gv = g->input(i);
    const auto pk = pv->node()->kind();
    if (pk == c10::prim::Param) continue;
    if (pv->offset() != gv->offset()) return false;
    if (!looksLike(pv->node(), gv->node(), pairs)) return false;
  }
  return true;
}

// Why the matcher rejected a candidate that looks like the pattern.
QString nearMissReason(const std::unordered_map<Node*, Node*>& pairs, Node* anchor) {
  std::unordered_set<Node*> inside;
  std::vector<Node*> ops;
  for (const auto& [p, g] : pairs) {
    inside.insert(g);
    if (g != anchor && g->kind() != c10::prim::Constant) ops.push_back(g);
  }
  sortInGraphOrder(ops);
  for (Node* g : ops) {
    for (Value* out : g->outputs())
      for (const auto& use : out->uses())
        if (!inside.count(use.user))
          return QStringLiteral("%%1 (%2) is also used outside the match, by %3")
              .arg(QString::fromStdString(out->debugName()), opName(g), opName(use.user));
  }
  return QStringLiteral("a constant or attribute differs from the pattern");
}

void collectNodes(torch::jit::Block* b, c10::Symbol kind, std::vector<Node*>& out) {
  for (Node* n : b->nodes()) {
    if (n->kind() == kind) out.push_back(n);
    for (auto* sub : n->blocks()) collectNodes(sub, kind, out);
  }
}


// The op nodes of a match all sit in the anchor's block: a rewrite never moves work into or out
// of an if branch or a loop body.
bool withinOneBlock(const Match& m) {
  for (const auto& [p, g] : m.nodes_map)
    if (g->kind() != c10::prim::Constant && g->owningBlock() != m.anchor->owningBlock()) return false;
  return true;
}

// Replaces one accepted match by the rule's replacement, inserted just before the match's anchor
// in the anchor's own block (libtorch's SubgraphRewriter inserts after the latest input, which
// can be outside a branch); its matched nodes are added to `matched`, for removeUnused.
// `replaced` maps results of earlier replacements to what took their place (a match may read the
// result of the match before it).
void replaceMatch(torch::jit::Graph& graph, torch::jit::Graph& pattern, const std::string& replacementIR,
                  const Match& m, std::unordered_map<Value*, Value*>& replaced, std::vector<Node*>& matched) {
  torch::jit::Graph replacement;
  std::unordered_map<std::string, Value*> rmap;
  torch::jit::parseIR(replacementIR, &replacement, rmap);
  std::vector<Value*> inputs;
  for (Value* pi : pattern.inputs()) {
    Value* v = m.values_map.at(pi);
    for (auto it = replaced.find(v); it != replaced.end(); it = replaced.find(v)) v = it->second;
    inputs.push_back(v);
  }
  Value* old = m.values_map.at(pattern.outputs()[0]);
  std::vector<Value*> outs;
  {
    torch::jit::WithInsertPoint guard(m.anchor);
    outs = torch::jit::insertGraph(graph, replacement, inputs);
  }
  if (outs.size() != 1) throw std::runtime_error("the replacement must return exactly one value");
  if (outs[0]->type()->kind() == old->type()->kind()) outs[0]->setType(old->type());
  old->replaceAllUsesWith(outs[0]);
  replaced[old] = outs[0];
  for (const auto& [p, g] : m.nodes_map) matched.push_back(g);
}

// Removes the matched nodes nothing reads any more. Only after every match is replaced: the keys
// of `replaced` are results of matched nodes, and a value made after one was destroyed could
// take its address and be mistaken for it (a later match then read another block's tensor).
void removeUnused(std::vector<Node*>& matched) {
  for (bool removed = true; removed;) {
    removed = false;
    for (Node*& n : matched) {
      if (!n) continue;
      bool used = false;
      for (Value* v : n->outputs()) used = used || v->hasUses();
      if (used) continue;
      n->destroy();
      n = nullptr;
      removed = true;
    }
  }
}


// The in-place twin of an out-of-place ATen op with the same arguments (aten::relu_ for
// aten::relu, aten::add_ for aten::add), when libtorch has one that writes its first argument.
std::optional<c10::Symbol> inPlaceTwin(const Node* n) {
  if (!n->kind().is_aten()) return std::nullopt;
  const std::string name = n->kind().toUnqualString();
  if (name.empty() || name.back() == '_') return std::nullopt;
  const c10::Symbol twin = c10::Symbol::fromQualString("aten::" + name + "_");
  for (const auto& op : torch::jit::getAllOperatorsFor(twin)) {
    const auto& args = op->schema().arguments();
    if (args.size() == n->inputs().size() && args[0].alias_info() && args[0].alias_info()->isWrite()) return twin;
  }
  return std::nullopt;
}

// One form of a rule's pattern: a [pattern] as written, or with some of its ops spelled in place
// (traced and exported models hold `x += y; relu_(x)`, as resnet's blocks do).
struct PatternForm {
  std::shared_ptr<torch::jit::Graph> graph;
  std::unordered_map<std::string, Value*> vmap;
  std::unordered_set<const Node*> respelled;  // pattern nodes Graft spelled in place
};

// Replaces pattern node `n` by a node of `kind` with the same inputs, keeping the names.
Node* respell(torch::jit::Graph& g, Node* n, c10::Symbol kind, std::unordered_map<std::string, Value*>& vmap) {
  Node* m = g.create(kind, n->inputs(), n->outputs().size());
  m->insertBefore(n);
  for (size_t i = 0; i < n->outputs().size(); ++i) {
    Value* old = n->output(i);
    Value* now = m->output(i);
    now->setType(old->type());
    const std::string name = old->hasDebugName() ? old->debugName() : std::string();
    old->replaceAllUsesWith(now);
    for (auto& [k, v] : vmap)
      if (v == old) v = now;
    if (!name.empty()) now->setDebugName(name);
  }
  n->destroy();
  return m;
}

// Every form of the rule's patterns: each [pattern], and each of them with any subset of its ops
// that have an in-place twin spelled in place (at most 4 such ops per pattern: 16 forms).
std::vector<PatternForm> patternForms(const Rule& rule) {
  std::vector<PatternForm> forms;
  QStringList texts{rule.pattern};
  texts += rule.alternatives;
  for (const QString& text : texts) {
    const std::string ir = text.toStdString();
    std::vector<size_t> twins;  // positions (in node order) of ops with an in-place twin
    {
      torch::jit::Graph probe;
      std::unordered_map<std::string, Value*> vmap;
      torch::jit::parseIR(ir, &probe, vmap);
      size_t i = 0;
      for (Node* n : probe.nodes()) {
        if (inPlaceTwin(n) && twins.size() < 4) twins.push_back(i);
        ++i;
      }
    }
    for (size_t mask = 0; mask < (size_t(1) << twins.size()); ++mask) {
      PatternForm f;
      f.graph = std::make_shared<torch::jit::Graph>();
      torch::jit::parseIR(ir, f.graph.get(), f.vmap);
      std::vector<Node*> nodes(f.graph->nodes().begin(), f.graph->nodes().end());
      for (size_t b = 0; b < twins.size(); ++b)
        if (mask & (size_t(1) << b)) {
          Node* n = nodes[twins[b]];
          f.respelled.insert(respell(*f.graph, n, *inPlaceTwin(n), f.vmap));
        }
      forms.push_back(std::move(f));
    }
  }
  return forms;
}

// Which input of the replacement it returns unchanged (remove-dropout returns %x), or -1.
int replacementReturnsInput(const QString& replacementIR) {
  torch::jit::Graph replacement;
  std::unordered_map<std::string, Value*> rmap;
  torch::jit::parseIR(replacementIR.toStdString(), &replacement, rmap);
  if (replacement.outputs().size() != 1) return -1;
  const Value* out = replacement.outputs()[0];
  return out->node()->kind() == c10::prim::Param ? int(out->offset()) : -1;
}

// Why an out-of-place replacement would not do what the in-place ops of match `m` did, empty
// when it would. An op written in place also changes the tensor it writes into: that is lost
// unless nothing else reads that tensor (it is a fresh result that only the match uses), or the
// op writes back the very value it was given (the replacement returns it unchanged).
QString inPlaceProblem(const PatternForm& form, const Match& m, int returnsInput) {
  std::unordered_set<const Node*> matched;
  std::unordered_map<const Node*, const Node*> patternOf;
  for (const auto& [p, g] : m.nodes_map) {
    matched.insert(g);
    patternOf[g] = p;
  }
  const auto writtenInPlace = [&](const Node* g) {
    auto it = patternOf.find(g);
    return it != patternOf.end() && form.respelled.count(it->second);
  };
  for (const auto& [p, g] : m.nodes_map) {
    if (!form.respelled.count(p)) continue;
    // The tensor g writes into: its first input, or what that aliases when an earlier in-place
    // op of the match made it.
    Value* base = g->input(0);
    while (writtenInPlace(base->node())) base = base->node()->input(0);
    if (returnsInput >= 0 && m.values_map.at(form.graph->inputs()[size_t(returnsInput)]) == base) continue;
    const QString op = opName(g), name = QString::fromStdString(base->debugName());
    const Node* producer = base->node();
    if (producer->kind() == c10::prim::Param)
      return QStringLiteral("%1 writes into the input %%2, which an out-of-place replacement would leave unchanged")
          .arg(op, name);
    const c10::FunctionSchema* schema = producer->maybeSchema();
    if (!schema || base->offset() >= schema->returns().size() || schema->returns()[base->offset()].alias_info())
      return QStringLiteral("%1 writes into %%2 (from %3), which may share memory with another tensor")
          .arg(op, name, opName(producer));
    for (const auto& use : base->uses())
      if (!matched.count(use.user))
        return QStringLiteral(
                   "%1 writes into %%2, which %3 also reads: an out-of-place replacement would change what it reads")
            .arg(op, name, opName(use.user));
  }
  return {};
}

}  // namespace

bool keepOnlyMatchAt(std::vector<Found>& found, const Node* onlyAt, QVector<Skip>& skipped) {
  if (!onlyAt) return !found.empty();
  std::vector<Found> kept;
  for (Found& f : found) {
    const bool covers = std::find(f.nodes.begin(), f.nodes.end(), onlyAt) != f.nodes.end();
    if (covers && kept.empty()) kept.push_back(std::move(f));
    else skipped.push_back({QStringLiteral("not the chosen match"), f.anchor, opName(f.anchor), /*notChosen=*/true});
  }
  found = std::move(kept);
  return !found.empty();
}

RewriteOutcome applyPatternRule(const Rule& rule, std::shared_ptr<torch::jit::Graph>& graph, bool dryRun,
                                const Node* onlyAt, const PathOf& pathOf) {
  RewriteOutcome out;
  try {
    std::vector<PatternForm> forms = patternForms(rule);
    for (const PatternForm& form : forms) {
      const torch::jit::Graph& pattern = *form.graph;
      if (pattern.outputs().size() != 1) {
        out.error = QStringLiteral("the pattern must return exactly one value");
        return out;
      }
      if (pattern.nodes().begin() == pattern.nodes().end() ||
          pattern.outputs()[0]->node()->kind() == c10::prim::Param) {
        out.error = QStringLiteral("the pattern has no operation to match: it must compute its result from its inputs");
        return out;
      }
    }
    const int returnsInput = replacementReturnsInput(rule.replacement);
    // Every form's matches, in form order: a match keeps the form it was found with.
    std::vector<std::pair<const PatternForm*, Match>> matches;
    for (const PatternForm& form : forms)
      for (Match& m : torch::jit::findPatternMatches(*form.graph, *graph)) matches.emplace_back(&form, std::move(m));
    std::unordered_set<const Node*> taken, anchors;
    std::unordered_map<const Node*, size_t> acceptedAt;  // anchor of an accepted match → its index
    for (size_t k = 0; k < matches.size(); ++k) {
      const auto& [form, m] = matches[k];
      anchors.insert(m.anchor);
      if (!withinOneBlock(m)) {
        out.skipped.push_back(
            {QStringLiteral("the match spans an if branch or loop body boundary"), m.anchor, opName(m.anchor)});
        continue;
      }
      if (QString why = failedCondition(rule, m, form->vmap, pathOf); !why.isEmpty()) {
        out.skipped.push_back({why, m.anchor, opName(m.anchor)});
        continue;
      }
      if (QString why = inPlaceProblem(*form, m, returnsInput); !why.isEmpty()) {
        out.skipped.push_back({why, m.anchor, opName(m.anchor)});
        continue;
      }
      bool overlaps = false;
      for (const auto& [p, g] : m.nodes_map) overlaps = overlaps || taken.count(g);
      if (overlaps) {
        out.skipped.push_back({QStringLiteral("overlaps an earlier match"), m.anchor, opName(m.anchor)});
        continue;
      }
      Found f{m.anchor, {}};
      for (const auto& [p, g] : m.nodes_map) taken.insert(g);
      for (Node* g : matchedOps(m)) f.nodes.push_back(g);
      out.found.push_back(std::move(f));
      acceptedAt[m.anchor] = k;
    }
    keepOnlyMatchAt(out.found, onlyAt, out.skipped);
    std::unordered_set<size_t> accepted;
    for (const Found& f : out.found) accepted.insert(acceptedAt.at(f.anchor));
    // Near misses: same anchor op and shape, rejected by the matcher.
    std::unordered_set<const Node*> nearMisses;
    for (const PatternForm& form : forms) {
      Node* patternAnchor = form.graph->outputs()[0]->node();
      std::vector<Node*> candidates;
      collectNodes(graph->block(), patternAnchor->kind(), candidates);
      for (Node* g : candidates) {
        if (anchors.count(g) || nearMisses.count(g)) continue;
        std::unordered_map<Node*, Node*> pairs;
        if (looksLike(patternAnchor, g, pairs)) {
          nearMisses.insert(g);
          out.skipped.push_back({nearMissReason(pairs, g), g, opName(g)});
        }
      }
    }
    out.matches = int(accepted.size());
    if (dryRun || accepted.empty()) return out;
    std::unordered_map<Value*, Value*> replaced;
    std::vector<Node*> matched;
    for (size_t k = 0; k < matches.size(); ++k)
      if (const auto& [form, m] = matches[k]; accepted.count(k))
        replaceMatch(*graph, *form->graph, rule.replacement.toStdString(), m, replaced, matched);
    removeUnused(matched);
  } catch (const c10::Error& e) {
    out.error = QString::fromStdString(e.what_without_backtrace());
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

}  // namespace graft::core::rewrite
