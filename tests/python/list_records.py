"""Prints the record names of a zip archive (.pt or .pt2), one per line."""
import sys
import zipfile

for name in zipfile.ZipFile(sys.argv[1]).namelist():
    print(name)
