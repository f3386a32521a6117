#include "core/io/tensor_records.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include <QtCore/QStringList>

#include <cstring>
#include <map>
#include <unordered_set>
#include <vector>

namespace graft::core::io {

namespace {

QString shapeText(const at::Tensor& t) {
  QStringList dims;
  for (auto d : t.sizes()) dims << QString::number(d);
  return QStringLiteral("[%1] %2").arg(dims.join(QStringLiteral(", ")),
                                       QString::fromLatin1(c10::toString(t.scalar_type())));
}

}  // namespace

QString checkTensorExtent(const at::Tensor& t, size_t storageBytes) {
  if (!t.defined() || t.is_sparse() || !t.has_storage()) return {};
  const int64_t offset = t.storage_offset();
  if (offset < 0) return QStringLiteral("a tensor %1 starts at a negative offset").arg(shapeText(t));
  bool empty = false;
  for (auto s : t.sizes()) empty = empty || s == 0;
  if (empty) return {};
  // The last element the view reaches, in elements, without overflow.
  unsigned __int128 extent = uint64_t(offset);
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t size = t.size(d), stride = t.stride(d);
    if (size < 0 || stride < 0) return QStringLiteral("a tensor %1 has a negative size or stride").arg(shapeText(t));
    extent += (unsigned __int128)(uint64_t(size - 1)) * uint64_t(stride);
  }
  extent += 1;
  const unsigned __int128 bytes = extent * t.element_size();
  if (bytes > storageBytes)
    return QStringLiteral("a tensor %1 needs %2 bytes of its storage, which holds %3")
        .arg(shapeText(t))
        .arg(bytes > (unsigned __int128)(~uint64_t(0)) ? QStringLiteral("more than 2^64")
                                                       : QString::number(uint64_t(bytes)))
        .arg(storageBytes);
  return {};
}

QString checkTensorRecords(caffe2::serialize::PyTorchStreamReader& reader, const std::string& archive) {
  const std::string pickleName = archive + ".pkl";
  if (!reader.hasRecord(pickleName)) return {};
  // Not a structured binding: the lambda below captures the size, which clang before 16 refuses.
  const auto record = reader.getRecord(pickleName);
  const size_t pickleSize = std::get<1>(record);
  const char* bytes = static_cast<const char*>(std::get<0>(record).get());
  size_t at = 0;
  auto read = [&](char* out, size_t n) -> size_t {
    n = std::min(n, pickleSize - at);
    if (n > 0) std::memcpy(out, bytes + at, n);
    at += n;
    return n;
  };
  // Classes stand as objects of a stand-in type holding their state: nothing is compiled, no
  // __setstate__ runs, so no tensor's bytes are touched.
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  std::map<std::string, c10::ClassTypePtr> classes;
  auto resolve = [&](const c10::QualifiedName& name) -> c10::StrongTypePtr {
    auto& cls = classes[name.qualifiedName()];
    if (!cls) {
      cls = c10::ClassType::create(name, cu);
      cls->addAttribute("state", c10::AnyType::get());
    }
    return c10::StrongTypePtr(cu, cls);
  };
  auto load = [](const c10::StrongTypePtr& type, c10::IValue state) {
    auto object = c10::ivalue::Object::create(type, 1);
    object->setSlot(0, std::move(state));
    return object;
  };
  // Each storage gets an untouched buffer of its record's size (the record is not read), and
  // the record's size is remembered by the buffer's address.
  std::map<const void*, std::pair<std::string, size_t>> records;
  auto readRecord = [&](const std::string& key) -> at::DataPtr {
    const std::string name = archive + "/" + key;
    if (!reader.hasRecord(name)) throw std::runtime_error("the archive lacks the record " + name);
    const size_t size = reader.getRecordSize(name);
    at::DataPtr data = c10::GetCPUAllocator()->allocate(std::max<size_t>(size, 1));
    records[data.get()] = {name, size};
    return data;
  };
  c10::IValue root;
  try {
    torch::jit::Unpickler unpickler(read, resolve, load, readRecord, std::nullopt);
    unpickler.set_version(reader.version());
    root = unpickler.parse_ivalue();
  } catch (const std::exception&) {
    return {};  // not a pickle this check understands: libtorch judges it
  }
  // Every tensor reachable from the root, without recursion (a pickle may nest deeply).
  std::vector<c10::IValue> pending{root};
  std::unordered_set<const void*> seen;
  while (!pending.empty()) {
    const c10::IValue v = std::move(pending.back());
    pending.pop_back();
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (!t.defined() || !t.has_storage()) continue;
      const size_t storageBytes = t.storage().nbytes();
      const auto record = records.find(t.storage().data());
      if (record == records.end()) continue;
      const auto& [name, recordBytes] = record->second;
      if (storageBytes > recordBytes)
        return QStringLiteral(
                   "record %1 size %2 does not match expected size %3: it is shorter than the storage its tensor %4 "
                   "needs")
            .arg(QString::fromStdString(name))
            .arg(recordBytes)
            .arg(storageBytes)
            .arg(shapeText(t));
      if (QString why = checkTensorExtent(t, storageBytes); !why.isEmpty())
        return QStringLiteral("record %1: %2").arg(QString::fromStdString(name), why);
      continue;
    }
    if (v.isTuple()) {
      for (const auto& e : v.toTupleRef().elements()) pending.push_back(e);
    } else if (v.isList()) {
      for (const auto& e : v.toListRef()) pending.push_back(e);
    } else if (v.isGenericDict()) {
      for (const auto& e : v.toGenericDict()) {
        pending.push_back(e.key());
        pending.push_back(e.value());
      }
    } else if (v.isObject()) {
      const auto object = v.toObject();
      if (!seen.insert(object.get()).second) continue;
      for (const auto& slot : object->slots()) pending.push_back(slot);
    }
  }
  return {};
}

}  // namespace graft::core::io
