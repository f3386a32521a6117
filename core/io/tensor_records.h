#pragma once
// Every tensor a pickle in a PyTorch archive builds is checked against the record that holds its
// bytes, before libtorch builds it for real: the record must hold the storage the pickle claims
// (numel × element size), and the tensor (offset, sizes, strides) must lie inside that storage.
// libtorch's own unpickler trusts both, so a record shorter than its tensor is read past its end
// (a crash, or garbage). torch.load refuses such a file; so does Graft, naming the record.
//
// Used for TorchScript archives (data.pkl and constants.pkl, before torch::jit::load), torch.save
// files (--input tensors, a .pt2's sample inputs and pickled constants).
#include <QtCore/QString>

#include <string>

namespace at { class Tensor; }
namespace caffe2::serialize { class PyTorchStreamReader; }

namespace graft::core::io {

// Why the tensors of `<archive>.pkl` do not fit their records (`<archive>/<key>`), empty when they
// all do or when the archive has no such pickle. The records are never read: only their sizes.
QString checkTensorRecords(caffe2::serialize::PyTorchStreamReader& reader, const std::string& archive);

// Why `tensor` reaches past its storage (`storageBytes`), empty when it fits.
QString checkTensorExtent(const at::Tensor& tensor, size_t storageBytes);

}  // namespace graft::core::io
