"""Turns model files into fuzz_load seeds (see fuzz_load.cpp for the two forms).

  archive_seed.py OUTDIR FILE...   writes OUTDIR/<name>.raw ('R' + the file) and, for a zip whose
                                   records inflate to at most 4 MiB, OUTDIR/<name>.zrec ('Z' + its
                                   records, top folder dropped): a deflate bomb stays raw
"""
import os
import struct
import sys
import zipfile


def records(path):
    out = bytearray(b"Z")
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            name = info.filename.split("/", 1)[1] if "/" in info.filename else info.filename
            if name in ("version", ".data/version", ".data/serialization_id") or not name:
                continue
            data = z.read(info)
            encoded = name.encode()[:255]
            out += bytes([len(encoded)]) + encoded + struct.pack("<I", len(data)) + data
    return bytes(out)


def main(outdir, files):
    os.makedirs(outdir, exist_ok=True)
    for path in files:
        base = os.path.join(outdir, os.path.basename(path).replace(".", "_"))
        with open(path, "rb") as f:
            raw = f.read()
        with open(base + ".raw", "wb") as f:
            f.write(b"R" + raw)
        if zipfile.is_zipfile(path) and sum(i.file_size for i in zipfile.ZipFile(path).infolist()) <= (4 << 20):
            with open(base + ".zrec", "wb") as f:
                f.write(records(path))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
