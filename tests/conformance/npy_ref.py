"""numpy's side of the .npy round trips.

Usage: npy_ref.py DIR

Writes with numpy DIR/np_f32.npy (float32 [3, 5], np.save), np_f64.npy
(float64 [7], format version 2.0), np_i64.npy (int64 [4, 2, 3], version
3.0) and np_i32.npy (int32 [6], np.save), with element k equal to the
formulas below. Then loads the files ddplab wrote, dd_f32.npy (float32
[4, 3]) and dd_i64.npy (int64 [5]), and checks shape, dtype and every
value. Exits 0 on success, 1 on a mismatch, 77 if numpy is missing.
"""
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)


def values(n, kind):
    k = np.arange(n, dtype=np.int64)
    if kind == "f32":
        return (k * 0.5 - 3.0).astype(np.float32)
    if kind == "f64":
        return k / 3.0
    if kind == "i64":
        return k * 10000000000 - 5
    return (k * 7 - 100).astype(np.int32)


def main():
    d = sys.argv[1]
    np.save(d + "/np_f32.npy", values(15, "f32").reshape(3, 5))
    with open(d + "/np_f64.npy", "wb") as f:
        np.lib.format.write_array(f, values(7, "f64"), version=(2, 0))
    with open(d + "/np_i64.npy", "wb") as f:
        np.lib.format.write_array(f, values(24, "i64").reshape(4, 2, 3), version=(3, 0))
    np.save(d + "/np_i32.npy", values(6, "i32"))

    ok = True
    for name, kind, shape, dtype in (("dd_f32.npy", "f32", (4, 3), "<f4"),
                                     ("dd_i64.npy", "i64", (5,), "<i8")):
        a = np.load(d + "/" + name)
        want = values(int(np.prod(shape)), kind).reshape(shape)
        if a.shape != shape or a.dtype.str != dtype or not np.array_equal(a, want):
            print("numpy read %s as %s %s %r" % (name, a.dtype.str, a.shape, a.ravel()[:8]))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
