#include "core/rewrite/fold_batchnorm.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/torch.h>

#include <unordered_set>

namespace graft::core::rewrite {

using torch::jit::Node;
using torch::jit::Value;

namespace {

QString opName(const Node* n) { return QString::fromStdString(n->kind().toQualString()); }

bool isConv(const Node* n) {
  const auto k = n->kind();
  return k == c10::aten::conv1d || k == c10::aten::conv2d || k == c10::aten::conv3d ||
         k == c10::aten::_convolution || k == c10::aten::convolution;
}

// Eval-mode batch norm as TorchScript and torch.export write it, and as run_decompositions()
// leaves it: _native_batch_norm_legit_no_training(input, weight, bias, mean, var, momentum, eps)
// with three results, of which only the first may be used.
const c10::Symbol kBatchNormNoTraining = c10::Symbol::fromQualString("aten::_native_batch_norm_legit_no_training");

bool isBatchNorm(const Node* n) { return n->kind() == c10::aten::batch_norm || n->kind() == kBatchNormNoTraining; }

// A tensor constant, or nullopt with `none` set when the value is a None constant.
std::optional<at::Tensor> constantTensor(Value* v, bool* none = nullptr) {
  auto iv = torch::jit::toIValue(v);
  if (none) *none = iv && iv->isNone();
  if (!iv || !iv->isTensor()) return std::nullopt;
  return iv->toTensor();
}

struct Fold {
  Node* producer;  // the conv or linear
  Node* bn;
  at::Tensor weight, bias;
};

// Checks one producer → batch_norm pair; on success fills `fold`, else returns why not.
QString analyse(Node* producer, Node* bn, bool isLinear, bool compute, Fold& fold) {
  if (producer->output()->uses().size() != 1)
    return QStringLiteral("the %1 output is also used outside the match").arg(opName(producer));
  const bool noTraining = bn->kind() == kBatchNormNoTraining;
  if (noTraining) {
    if (bn->output(1)->hasUses() || bn->output(2)->hasUses())
      return QStringLiteral("batch_norm's saved statistics are used");
  } else {
    auto training = torch::jit::toIValue(bn->input(5));
    if (!training || !training->isBool()) return QStringLiteral("batch_norm's training flag is not a constant");
    if (training->toBool()) return QStringLiteral("training-mode batch_norm");
  }
  if (producer->kind() == c10::aten::_convolution || producer->kind() == c10::aten::convolution) {
    auto transposed = torch::jit::toIValue(producer->input(6));
    if (!transposed || !transposed->isBool() || transposed->toBool())
      return QStringLiteral("transposed (or not provably plain) convolution");
  }
  auto w = constantTensor(producer->input(1));
  if (!w) return QStringLiteral("non-constant weights (%1 weight)").arg(opName(producer));
  bool noBias = false, noGamma = false, noBeta = false;
  auto b = constantTensor(producer->input(2), &noBias);
  if (!b && !noBias) return QStringLiteral("non-constant weights (%1 bias)").arg(opName(producer));
  auto gamma = constantTensor(bn->input(1), &noGamma);
  auto beta = constantTensor(bn->input(2), &noBeta);
  auto mean = constantTensor(bn->input(3));
  auto var = constantTensor(bn->input(4));
  auto eps = torch::jit::toIValue(bn->input(noTraining ? 6 : 7));
  if ((!gamma && !noGamma) || (!beta && !noBeta) || !mean || !var)
    return QStringLiteral("non-constant weights (batch_norm parameters or running statistics)");
  if (!eps || !eps->isDouble()) return QStringLiteral("batch_norm's eps is not a constant");
  const int64_t channels = w->size(0);
  if (mean->numel() != channels || var->numel() != channels)
    return QStringLiteral("batch_norm has %1 channels, the %2 has %3 outputs")
        .arg(mean->numel()).arg(opName(producer)).arg(channels);
  if (isLinear) {
    if (auto t = producer->output()->type()->cast<c10::TensorType>(); t && t->dim() && *t->dim() != 2)
      return QStringLiteral("batch_norm over a rank-%1 linear output normalises another dimension").arg(*t->dim());
  }
  fold.producer = producer;
  fold.bn = bn;
  if (!compute) return {};  // counting only (the editor's live preview): skip the arithmetic
  // Folded in double precision, stored in the weight's dtype.
  const auto opts = w->options().dtype(at::kDouble);
  const at::Tensor g = gamma ? gamma->to(at::kDouble) : at::ones({channels}, opts);
  const at::Tensor bt = beta ? beta->to(at::kDouble) : at::zeros({channels}, opts);
  const at::Tensor b0 = b ? b->to(at::kDouble) : at::zeros({channels}, opts);
  const at::Tensor scale = g / at::sqrt(var->to(at::kDouble) + eps->toDouble());
  std::vector<int64_t> shape(size_t(w->dim()), 1);
  shape[0] = channels;
  fold.weight = (w->to(at::kDouble) * scale.reshape(shape)).to(w->scalar_type()).contiguous();
  fold.bias = ((b0 - mean->to(at::kDouble)) * scale + bt).to(w->scalar_type());
  return {};
}

RewriteOutcome foldBatchNorm(torch::jit::Graph& graph, bool dryRun, bool linear, const Node* onlyAt) {
  RewriteOutcome out;
  std::vector<Node*> bns;
  std::function<void(torch::jit::Block*)> collect = [&](torch::jit::Block* b) {
    for (Node* n : b->nodes()) {
      if (isBatchNorm(n)) bns.push_back(n);
      for (auto* sub : n->blocks()) collect(sub);
    }
  };
  collect(graph.block());
  std::vector<Fold> folds;
  for (Node* bn : bns) {
    Node* producer = bn->input(0)->node();
    if (linear ? producer->kind() != c10::aten::linear : !isConv(producer)) continue;
    Fold fold;
    if (QString why = analyse(producer, bn, linear, !dryRun, fold); !why.isEmpty()) {
      out.skipped.push_back({why, bn, opName(bn)});
      continue;
    }
    folds.push_back(fold);
    out.found.push_back({bn, {producer, bn}});
  }
  keepOnlyMatchAt(out.found, onlyAt, out.skipped);
  std::erase_if(folds, [&](const Fold& f) {
    return std::none_of(out.found.begin(), out.found.end(), [&](const Found& k) { return k.anchor == f.bn; });
  });
  out.matches = int(folds.size());
  if (dryRun) return out;
  // Transform: new constants and rewiring first, every deletion last (no node is freed while
  // new ones are made, so NodeId bookkeeping never sees a reused address).
  std::vector<Node*> maybeDead;
  for (const Fold& f : folds) {
    torch::jit::WithInsertPoint guard(f.producer);
    Value* w = graph.insertConstant(f.weight);
    Value* b = graph.insertConstant(f.bias);
    maybeDead.push_back(f.producer->input(1)->node());
    maybeDead.push_back(f.producer->input(2)->node());
    for (Value* in : f.bn->inputs()) maybeDead.push_back(in->node());
    f.producer->replaceInput(1, w);
    f.producer->replaceInput(2, b);
    f.bn->output(0)->replaceAllUsesWith(f.producer->output());
  }
  for (const Fold& f : folds) f.bn->destroy();
  std::unordered_set<Node*> destroyed;
  for (Node* n : maybeDead) {
    if (destroyed.count(n) || n->kind() != c10::prim::Constant || n->hasUses()) continue;
    destroyed.insert(n);
    n->destroy();
  }
  return out;
}

}  // namespace

RewriteOutcome foldConvBatchNorm(torch::jit::Graph& graph, bool dryRun, const Node* onlyAt) {
  return foldBatchNorm(graph, dryRun, false, onlyAt);
}

RewriteOutcome foldLinearBatchNorm(torch::jit::Graph& graph, bool dryRun, const Node* onlyAt) {
  return foldBatchNorm(graph, dryRun, true, onlyAt);
}

}  // namespace graft::core::rewrite
