"""Small files that claim to need far more than they hold, for tst_safety:
  many_nodes.pt2     a torch.export program whose model.json (stored) defines 1,000,000 nodes
  shared_code.pt     a scripted model whose directory lists 10,000 code/*.py records, all pointing
                     at one deflated 1 MiB record (under 1 MiB in the file)
  many_code.pt       the same 10,000 records, each its own copy of the deflated 1 MiB (~11 MB)
  listed_twice.pt    one code record listed 10,000 times under the same name
Written directly (zipfile and a hand-made zip directory); no torch.export or torch.jit needed.
Run: .venv/bin/python make_size_bombs.py OUTDIR [NAME...]   (NAME: only those files)
"""
import json
import os
import struct
import sys
import zipfile
import zlib

NODES = 1_000_000
CODE_RECORDS = 10_000
CODE_BYTES = 1 << 20


def many_nodes(path):
    # A chain of relus: each node reads the last one's output. Enough of the schema for Graft to
    # recognise a program; the node count is what is refused.
    node = ('{"target": "torch.ops.aten.relu.default", "inputs": [{"name": "self", "arg": {"as_tensor": '
            '{"name": "r%d"}}, "kind": 1}], "outputs": [{"as_tensor": {"name": "r%d"}}], "metadata": {}}')
    nodes = ",".join(node % (i, i + 1) for i in range(NODES))
    head = json.dumps({"schema_version": {"major": 8, "minor": 0}})[:-1]
    model = head + ', "graph_module": {"graph": {"inputs": [], "outputs": [], "tensor_values": {}, "nodes": [' + nodes
    model += ']}, "signature": {"input_specs": [], "output_specs": []}}}'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("model/archive_format", "pt2")
        z.writestr("model/archive_version", "0")
        z.writestr("model/.data/version", "6\n")
        z.writestr("model/byteorder", "little")
        z.writestr("model/models/model.json", model)


def local_header(name, data, size, crc):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), size, len(name), 0) + name


def central_entry(name, data, size, crc, offset):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data), size, len(name), 0, 0,
                       0, 0, 0, offset) + name


def code_archive(path, distinct, same_name=False):
    # The records a scripted model needs to be taken for one (version, data.pkl, constants.pkl),
    # stored, then the code records deflated.
    text = (b"# " + b"x" * 76 + b"\n") * (CODE_BYTES // 80)
    text += b"#" * (CODE_BYTES - len(text))
    data = zlib.compress(text, 9)[2:-4]  # raw deflate
    crc = zlib.crc32(text)
    body, directory = [], []
    at = 0

    def add(name, payload, size, crc_, method):
        nonlocal at
        header = local_header(name, payload, size, crc_)
        entry = central_entry(name, payload, size, crc_, at)
        if method == 0:  # the method field, 8 in both as made
            header = header[:8] + struct.pack("<H", 0) + header[10:]
            entry = entry[:10] + struct.pack("<H", 0) + entry[12:]
        directory.append(entry)
        body.extend((header, payload))
        at += len(header) + len(payload)

    for name, payload in ((b"archive/version", b"3\n"), (b"archive/data.pkl", b"\x80\x02}q\x00."),
                          (b"archive/constants.pkl", b"\x80\x02).")):
        add(name, payload, len(payload), zlib.crc32(payload), 0)
    shared = at
    add(b"archive/code/__torch__/m0.py", data, len(text), crc, 8)
    for i in range(1, CODE_RECORDS):
        name = b"archive/code/__torch__/m0.py" if same_name else b"archive/code/__torch__/m%d.py" % i
        if distinct:
            add(name, data, len(text), crc, 8)
        else:
            directory.append(central_entry(name, data, len(text), crc, shared))
    listing = b"".join(directory)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(directory), len(directory), len(listing), at, 0)
    with open(path, "wb") as f:
        f.write(b"".join(body) + listing + end)


FILES = {
    "many_nodes.pt2": many_nodes,
    "shared_code.pt": lambda path: code_archive(path, distinct=False),
    "many_code.pt": lambda path: code_archive(path, distinct=True),
    "listed_twice.pt": lambda path: code_archive(path, distinct=False, same_name=True),
}


def main(out, names):
    os.makedirs(out, exist_ok=True)
    for name in names or FILES:
        FILES[name](os.path.join(out, name))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
