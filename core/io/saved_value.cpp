#include "core/io/saved_value.h"

#include "core/io/archive_probe.h"
#include "core/io/pickle_check.h"
#include "core/io/tensor_records.h"

#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import_read.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace graft::core::io {

namespace {

// The bytes of a zip for PyTorchStreamReader, every read clamped to the buffer.
class BoundedReader : public caffe2::serialize::ReadAdapterInterface {
 public:
  explicit BoundedReader(QByteArray bytes) : bytes_(std::move(bytes)) {}
  size_t size() const override { return size_t(bytes_.size()); }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= size()) return 0;
    n = std::min<size_t>(n, size() - size_t(pos));
    std::memcpy(buf, bytes_.constData() + pos, n);
    return n;
  }

 private:
  QByteArray bytes_;
};

}  // namespace

c10::IValue loadSavedValue(const QByteArray& bytes) {
  caffe2::serialize::PyTorchStreamReader reader(std::make_shared<BoundedReader>(bytes));
  if (const QString why = checkRecordSizes(reader, bytes.size()); !why.isEmpty())
    throw std::runtime_error("a damaged torch.save archive: " + why.toStdString());
  if (reader.hasRecord("data.pkl")) {
    auto [data, size] = reader.getRecord("data.pkl");
    if (const QString why = checkPickleLengths(static_cast<const char*>(data.get()), size); !why.isEmpty())
      throw std::runtime_error("a damaged torch.save pickle: " + why.toStdString());
  }
  // Each tensor against its record (torch.load refuses a record shorter than its tensor).
  if (const QString why = checkTensorRecords(reader, "data"); !why.isEmpty())
    throw std::runtime_error("a damaged torch.save archive: " + why.toStdString());
  // On the CPU whatever device the value was saved from (a program exported on a GPU saves its
  // sample inputs there): a run moves them where it runs.
  return torch::jit::readArchiveAndTensors("data", "", "", std::nullopt, std::nullopt, c10::Device(c10::kCPU), reader);
}

}  // namespace graft::core::io
