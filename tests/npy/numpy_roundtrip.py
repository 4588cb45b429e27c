#!/usr/bin/env python3
"""npy.numpy_roundtrip: .npy files between pallas and a real numpy.

1. The C++ program writes every dtype and shape (value(k, 0) in npy_values.hpp).
2. numpy loads each file and checks its dtype, shape and every element's bits against
   the same values computed here, and that the file is byte for byte what np.save writes
   (bfloat16: what np.save writes with ml_dtypes, descr '<V2'). It then writes
   value(k, 1) back in assorted forms: format 1.0, 2.0 and 3.0, Fortran order, big-endian,
   bfloat16 as void '|V2', as bits '<u2' and (when ml_dtypes is there) as ml_dtypes does.
3. The C++ program loads those and checks every element.

    numpy_roundtrip.py --program <numpy_roundtrip executable> --dir <scratch directory>

Exits 77 (ctest: skipped) when numpy cannot be imported, saying why.
"""

import argparse
import io
import pathlib
import shutil
import subprocess
import sys

SKIP = 77

try:
    import numpy as np
except ImportError as error:
    print(f"npy.numpy_roundtrip skipped: {sys.executable} cannot import numpy ({error}); "
          "Debian: apt-get install python3-numpy")
    sys.exit(SKIP)
try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

SHAPES = [(), (1,), (5,), (1, 1), (3, 1), (1, 4), (2, 3), (1, 1, 1), (2, 1, 3), (2, 3, 4)]
DTYPES = ["float32", "bfloat16", "float16", "int8", "int16", "int32", "uint32", "bool"]
DESCR = {"float32": "<f4", "bfloat16": "<V2", "float16": "<f2", "int8": "|i1",
         "int16": "<i2", "int32": "<i4", "uint32": "<u4", "bool": "|b1"}


def float_values(n, seed):
    k = np.arange(n)
    v = ((k % 16) * 0.5 - 3.25 + 4 * seed).astype(np.float32)
    specials = {1: -0.0, 2: np.inf, 3: -np.inf, 4: np.nan}
    for index, special in specials.items():
        if index < n:
            v[index] = special
    return v


def values(dtype, shape, seed):
    """The test array as numpy sees it (bfloat16 as its uint16 bits)."""
    n = int(np.prod(shape, dtype=np.int64))
    k = np.arange(n, dtype=np.int64)
    if dtype == "float32":
        v = float_values(n, seed)
    elif dtype == "bfloat16":  # every value is exact in bfloat16: the upper half of f32
        v = (float_values(n, seed).view(np.uint32) >> 16).astype(np.uint16)
    elif dtype == "float16":
        v = float_values(n, seed).astype(np.float16)
    elif dtype == "int8":
        v = ((k * 37 + seed * 11) % 256 - 128).astype(np.int8)
    elif dtype == "int16":
        v = ((k * 1237 + seed * 7) % 65536 - 32768).astype(np.int16)
    elif dtype == "int32":
        v = (k * 100003 - 1073741824 + seed * 5).astype(np.int32)
    elif dtype == "uint32":
        v = (4000000000 - 3 * k - seed).astype(np.uint32)
    else:
        v = (k + seed) % 3 == 0
    return v.reshape(shape)


def bits(a):
    """The elements' bit patterns, so that NaN and -0 compare exactly."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "b":
        return a.astype(np.uint8)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize > 1 else a.view(np.uint8)


def file_name(dtype, shape):
    return f"{dtype}_" + ("scalar" if not shape else "x".join(map(str, shape)))


def saved_bytes(array, version=None):
    out = io.BytesIO()
    if version is None:
        np.save(out, array)
    else:
        np.lib.format.write_array(out, array, version=version)
    return out.getvalue()


def check_cpp_file(path, dtype, shape, problems):
    loaded = np.load(path)
    expected = values(dtype, shape, 0)
    if dtype == "bfloat16":
        if loaded.dtype.kind != "V" or loaded.dtype.itemsize != 2:
            problems.append(f"{path.name}: dtype {loaded.dtype.str}, expected 2-byte void")
            return
        loaded = loaded.view(np.uint16)
        # np.save of a void array writes '|V2'; ml_dtypes' bfloat16 writes '<V2'.
        reference = saved_bytes(expected.view("V2")).replace(b"'|V2'", b"'<V2'", 1)
        if ml_dtypes is not None:
            reference_ml = saved_bytes(expected.view(ml_dtypes.bfloat16))
            if reference_ml != reference:
                problems.append("ml_dtypes no longer saves bfloat16 as '<V2'")
    else:
        if loaded.dtype.str != DESCR[dtype]:
            problems.append(f"{path.name}: dtype {loaded.dtype.str}, expected {DESCR[dtype]}")
            return
        reference = saved_bytes(expected)
    if loaded.shape != shape:
        problems.append(f"{path.name}: shape {loaded.shape}, expected {shape}")
        return
    wrong = np.flatnonzero(bits(loaded) != bits(expected))
    if wrong.size:
        problems.append(f"{path.name}: {wrong.size} elements differ, first at flat index {wrong[0]}")
    if path.read_bytes() != reference:
        problems.append(f"{path.name}: the bytes differ from what np.save writes")


def write_back(path, dtype, shape, index):
    """value(k, 1) in one of several forms numpy can write, chosen by index."""
    v = values(dtype, shape, 1)
    if dtype == "bfloat16":
        forms = ["void", "bits"] + (["ml_dtypes"] if ml_dtypes is not None else [])
        form = forms[index % len(forms)]
        v = {"void": lambda: v.view("V2"), "bits": lambda: v,
             "ml_dtypes": lambda: v.view(ml_dtypes.bfloat16)}[form]()
        path.write_bytes(saved_bytes(v))
        return form
    # Shifted by one per dtype, so that each form meets every shape across the dtypes.
    form = ["1.0", "2.0", "3.0", "fortran", "big-endian"][(index + index // len(SHAPES)) % 5]
    if form == "fortran" and v.ndim < 2:  # asfortranarray would make a 0-d array 1-d
        form = "1.0"
    if form == "fortran":
        v = np.asfortranarray(v)
    elif form == "big-endian" and v.dtype.itemsize > 1:
        v = v.astype(v.dtype.newbyteorder(">"))
    version = {"2.0": (2, 0), "3.0": (3, 0)}.get(form)
    path.write_bytes(saved_bytes(v, version))
    return form


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True)
    parser.add_argument("--dir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.dir, ignore_errors=True)
    args.dir.mkdir(parents=True)
    print(f"numpy {np.__version__}, ml_dtypes {getattr(ml_dtypes, '__version__', 'absent')}")

    subprocess.run([args.program, "write", str(args.dir)], check=True)
    problems = []
    forms = {}
    index = 0
    for dtype in DTYPES:
        for shape in SHAPES:
            name = file_name(dtype, shape)
            path = args.dir / f"{name}.npy"
            if not path.is_file():
                problems.append(f"{path.name} was not written")
                continue
            check_cpp_file(path, dtype, shape, problems)
            form = write_back(args.dir / f"{name}.back.npy", dtype, shape, index)
            forms[form] = forms.get(form, 0) + 1
            index += 1
    for problem in problems:
        print(f"numpy_roundtrip.py: {problem}")
    if problems:
        return 1
    print(f"numpy read {index} files from C++ and wrote them back as {forms}")
    return subprocess.run([args.program, "read", str(args.dir)]).returncode


if __name__ == "__main__":
    sys.exit(main())
