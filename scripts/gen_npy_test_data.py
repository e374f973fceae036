#!/usr/bin/env python3
"""Writes tests/data/npy/*.npy: small .npy files made by numpy itself, in the layouts a
hand-written reader gets wrong (big-endian, Fortran order, format versions 2.0 and 3.0,
unicode and bytes strings, 0-d and empty arrays, ml_dtypes' bfloat16), read by
tests/npy.rs, which states the values each holds. numpy's own writer (np.save, or
np.lib.format.write_array for an explicit version) makes every file.

    ~/.cache/tensorgraph/tf-2.21-venv/bin/python scripts/gen_npy_test_data.py

(the venv is made by interop/setup_venv.sh; numpy 2.4.6 made the committed files).
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "npy")


def save(name, array, version=None):
    path = os.path.join(OUT, name)
    if version is None:
        np.save(path, array)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, array, version=version)


def main():
    os.makedirs(OUT, exist_ok=True)
    # big-endian: every fixed-size numeric kind
    save("be_i4_2x3.npy", (np.arange(6, dtype=">i4") - 3).reshape(2, 3))
    save("be_f8.npy", np.array([1.5, -0.25, np.inf], dtype=">f8"))
    save("be_f2.npy", np.array([0.5, -2.0, 65504.0], dtype=">f2"))
    save("be_u2.npy", np.array([1, 513, 65535], dtype=">u2"))
    save("be_c8.npy", np.array([1 + 2j, -3.5 - 0.5j], dtype=">c8"))
    save("be_c16.npy", np.array([0.25 - 1j], dtype=">c16"))
    # Fortran order (np.asfortranarray): the file holds the values column-major
    save("fortran_f4_2x3.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
    save("fortran_i8_2x3x4.npy", np.asfortranarray(np.arange(24, dtype="<i8").reshape(2, 3, 4)))
    save("fortran_be_i2_3x2.npy", np.asfortranarray(np.array([[1, -2], [3, -4], [5, -6]], dtype=">i2")))
    # strings: fixed-width bytes (NUL-padded) and unicode (UTF-32)
    save("bytes_S3.npy", np.array([b"ab", b"", b"xyz"]))
    save("unicode_U5.npy", np.array(["a", "h\u00e9llo", ""]))
    # bool, 0-d, empty
    save("bool_2x2.npy", np.array([[True, False], [False, True]]))
    save("scalar_f8.npy", np.float64(3.25))
    save("empty_i2_0x3.npy", np.zeros((0, 3), dtype="<i2"))
    # explicit format versions: 2.0 (4-byte header length), 3.0 (UTF-8 header)
    save("v2_u1.npy", np.array([7, 255], dtype=np.uint8), version=(2, 0))
    save("v3_i1.npy", np.array([-128, 5], dtype=np.int8), version=(3, 0))
    # ml_dtypes' bfloat16 (TensorFlow's): numpy stores it as 2 raw bytes, '<V2'
    import ml_dtypes

    save("bfloat16_V2.npy", np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16))
    # an object array (pickled)
    save("object.npy", np.array([1, "a"], dtype=object))


if __name__ == "__main__":
    main()
