#include "core/samples/samples.h"

#include <torch/script.h>

namespace graft::core::samples {

namespace {

using torch::jit::CompilationUnit;
using torch::jit::Module;
using CU = std::shared_ptr<CompilationUnit>;

// A module of class `cls` with a `training` flag, as nn.Module has.
Module newModule(const CU& cu, const std::string& cls) {
  Module m(c10::QualifiedName("__torch__.graft.samples." + cls), cu, /*shouldMangle=*/true);
  m.register_attribute("training", c10::BoolType::get(), true);
  return m;
}

torch::Tensor init(std::vector<int64_t> shape, double scale) { return torch::randn(shape) * scale; }

Module conv2d(const CU& cu, int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding) {
  Module m = newModule(cu, "Conv2d");
  m.register_parameter("weight", init({out, in, kernel, kernel}, 1.0 / std::sqrt(double(in * kernel * kernel))), false);
  m.register_parameter("bias", init({out}, 0.1), false);
  m.define("def forward(self, x):\n  return torch.conv2d(x, self.weight, self.bias, [" + std::to_string(stride) + ", " +
           std::to_string(stride) + "], [" + std::to_string(padding) + ", " + std::to_string(padding) +
           "], [1, 1], 1)\n");
  return m;
}

Module batchNorm2d(const CU& cu, int64_t channels) {
  Module m = newModule(cu, "BatchNorm2d");
  m.register_parameter("weight", torch::rand({channels}) + 0.5, false);
  m.register_parameter("bias", init({channels}, 0.1), false);
  m.register_buffer("running_mean", init({channels}, 0.1));
  m.register_buffer("running_var", torch::rand({channels}) + 0.5);
  m.define(
      "def forward(self, x):\n"
      "  return torch.batch_norm(x, self.weight, self.bias, self.running_mean, self.running_var,"
      " self.training, 0.1, 1e-05, False)\n");
  return m;
}

Module unary(const CU& cu, const std::string& cls, const std::string& expr) {
  Module m = newModule(cu, cls);
  m.define("def forward(self, x):\n  return " + expr + "\n");
  return m;
}

Module linear(const CU& cu, int64_t in, int64_t out) {
  Module m = newModule(cu, "Linear");
  m.register_parameter("weight", init({out, in}, 1.0 / std::sqrt(double(in))), false);
  m.register_parameter("bias", init({out}, 0.1), false);
  m.define("def forward(self, x):\n  return torch.linear(x, self.weight, self.bias)\n");
  return m;
}

Module layerNorm(const CU& cu, int64_t dim) {
  Module m = newModule(cu, "LayerNorm");
  m.register_parameter("weight", torch::rand({dim}) + 0.5, false);
  m.register_parameter("bias", init({dim}, 0.1), false);
  m.define("def forward(self, x):\n  return torch.layer_norm(x, [" + std::to_string(dim) +
           "], self.weight, self.bias, 1e-05, False)\n");
  return m;
}

Module convBnRelu(const CU& cu, int64_t in, int64_t out, int64_t stride) {
  Module m = newModule(cu, "ConvBnReLU");
  m.register_module("conv", conv2d(cu, in, out, 3, stride, 1));
  m.register_module("bn", batchNorm2d(cu, out));
  m.register_module("relu", unary(cu, "ReLU", "torch.relu(x)"));
  m.define("def forward(self, x):\n  return self.relu.forward(self.bn.forward(self.conv.forward(x)))\n");
  return m;
}

Module residualBlock(const CU& cu, int64_t channels) {
  Module m = newModule(cu, "BasicBlock");
  m.register_module("conv1", conv2d(cu, channels, channels, 3, 1, 1));
  m.register_module("bn1", batchNorm2d(cu, channels));
  m.register_module("relu", unary(cu, "ReLU", "torch.relu(x)"));
  m.register_module("conv2", conv2d(cu, channels, channels, 3, 1, 1));
  m.register_module("bn2", batchNorm2d(cu, channels));
  m.define(
      "def forward(self, x):\n"
      "  out = self.relu.forward(self.bn1.forward(self.conv1.forward(x)))\n"
      "  out = self.bn2.forward(self.conv2.forward(out))\n"
      "  out = out + x\n"
      "  return torch.relu(out)\n");
  return m;
}

Module cnn(const CU& cu) {
  Module m = newModule(cu, "SmallCNN");
  m.register_module("stem", convBnRelu(cu, 3, 16, 1));
  m.register_module("block1", residualBlock(cu, 16));
  m.register_module("down", convBnRelu(cu, 16, 32, 2));
  m.register_module("block2", residualBlock(cu, 32));
  m.register_module("fc", linear(cu, 32, 10));
  m.define(
      "def forward(self, x):\n"
      "  x = self.block1.forward(self.stem.forward(x))\n"
      "  x = self.block2.forward(self.down.forward(x))\n"
      "  x = torch.adaptive_avg_pool2d(x, [1, 1])\n"
      "  x = torch.flatten(x, 1)\n"
      "  return self.fc.forward(x)\n");
  return m;
}

Module mlp(const CU& cu) {
  Module m = newModule(cu, "MLP");
  m.register_module("fc1", linear(cu, 64, 128));
  m.register_module("act1", unary(cu, "ReLU", "torch.relu(x)"));
  m.register_module("drop1", unary(cu, "Dropout", "torch.dropout(x, 0.1, self.training)"));
  m.register_module("fc2", linear(cu, 128, 64));
  m.register_module("act2", unary(cu, "ReLU", "torch.relu(x)"));
  m.register_module("drop2", unary(cu, "Dropout", "torch.dropout(x, 0.1, self.training)"));
  m.register_module("head", linear(cu, 64, 10));
  m.define(
      "def forward(self, x):\n"
      "  x = self.drop1.forward(self.act1.forward(self.fc1.forward(x)))\n"
      "  x = self.drop2.forward(self.act2.forward(self.fc2.forward(x)))\n"
      "  return self.head.forward(x)\n");
  return m;
}

Module attention(const CU& cu, int64_t dim, int64_t heads) {
  Module m = newModule(cu, "SelfAttention");
  m.register_module("q", linear(cu, dim, dim));
  m.register_module("k", linear(cu, dim, dim));
  m.register_module("v", linear(cu, dim, dim));
  m.register_module("proj", linear(cu, dim, dim));
  const std::string h = std::to_string(heads), d = std::to_string(dim / heads);
  m.define(
      "def forward(self, x):\n"
      "  b = x.size(0)\n"
      "  t = x.size(1)\n"
      "  q = self.q.forward(x).reshape([b, t, " + h + ", " + d + "]).transpose(1, 2)\n"
      "  k = self.k.forward(x).reshape([b, t, " + h + ", " + d + "]).transpose(1, 2)\n"
      "  v = self.v.forward(x).reshape([b, t, " + h + ", " + d + "]).transpose(1, 2)\n"
      "  scores = torch.matmul(q, k.transpose(-2, -1)) / " + std::to_string(std::sqrt(double(dim / heads))) + "\n"
      "  weights = torch.softmax(scores, -1)\n"
      "  out = torch.matmul(weights, v).transpose(1, 2).reshape([b, t, " + std::to_string(dim) + "])\n"
      "  return self.proj.forward(out)\n");
  return m;
}

Module transformer(const CU& cu) {
  const int64_t dim = 32;
  Module m = newModule(cu, "TransformerBlock");
  m.register_module("ln1", layerNorm(cu, dim));
  m.register_module("attn", attention(cu, dim, 4));
  m.register_module("ln2", layerNorm(cu, dim));
  Module ffn = newModule(cu, "FeedForward");
  ffn.register_module("fc1", linear(cu, dim, 4 * dim));
  ffn.register_module("act", unary(cu, "GELU", "torch.gelu(x)"));
  ffn.register_module("fc2", linear(cu, 4 * dim, dim));
  ffn.define("def forward(self, x):\n  return self.fc2.forward(self.act.forward(self.fc1.forward(x)))\n");
  m.register_module("mlp", ffn);
  m.define(
      "def forward(self, x):\n"
      "  x = x + self.attn.forward(self.ln1.forward(x))\n"
      "  return x + self.mlp.forward(self.ln2.forward(x))\n");
  return m;
}

}  // namespace

const std::vector<SampleInfo>& all() {
  static const std::vector<SampleInfo> samples = {
      {QStringLiteral("cnn"), QStringLiteral("Small CNN"),
       QStringLiteral("conv + batchnorm + relu blocks, two residual blocks, pooling and a linear head"),
       {1, 3, 32, 32}},
      {QStringLiteral("mlp"), QStringLiteral("MLP"),
       QStringLiteral("three linear layers with relu and dropout"), {1, 64}},
      {QStringLiteral("transformer"), QStringLiteral("Tiny transformer block"),
       QStringLiteral("layer norm, 4-head self-attention from matmul and softmax, a gelu feed-forward"),
       {1, 8, 32}},
  };
  return samples;
}

const SampleInfo* find(const QString& name) {
  for (const auto& s : all())
    if (s.name == name) return &s;
  return nullptr;
}

QStringList names() {
  QStringList out;
  for (const auto& s : all()) out << s.name;
  return out;
}

QString inputSpec(const SampleInfo& sample) {
  QStringList dims;
  for (auto d : sample.inputShape) dims << QString::number(d);
  return dims.join(QLatin1Char('x')) + QStringLiteral(":float32");
}

std::optional<torch::jit::Module> build(const QString& name) {
  // Fixed weights: the same sample is the same model on every run.
  at::manual_seed(20261202);
  auto cu = std::make_shared<CompilationUnit>();
  std::optional<Module> m;
  if (name == QLatin1String("cnn")) m = cnn(cu);
  else if (name == QLatin1String("mlp")) m = mlp(cu);
  else if (name == QLatin1String("transformer")) m = transformer(cu);
  if (m) m->eval();
  return m;
}

}  // namespace graft::core::samples
