"""What the interop check scripts share: TensorFlow imported quietly, and a PASS/FAIL counter.

    from tfcheck import tf, tf1, np, Checker
    c = Checker()
    c.check("title", fn)   # fn returns None/True to pass; a string or an exception fails
    c.summary()            # prints `interop: N passed, M failed`; returns the exit status
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402,F401
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf.get_logger().setLevel("ERROR")


def brief(e):
    """One line from an exception: TF's messages minus their stack traces."""
    text = str(e).split("Original stack trace")[0]
    keep = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith(
        ("File ", "Detected at", "Node:", "[[", "Graph execution error"))]
    return ("%s: %s" % (type(e).__name__, " | ".join(keep)))[:500]


class Checker:
    """Counts and prints the outcome of each check."""

    def __init__(self):
        self.passed = self.failed = 0

    def check(self, title, fn):
        """Run fn(); it returns None/True for PASS, or raises/returns a string for FAIL."""
        try:
            res = fn()
            err = res if isinstance(res, str) else None
        except Exception as e:  # any error is a failed check, with its reason
            err = brief(e)
        if err is None:
            self.passed += 1
            print("PASS  %s" % title)
        else:
            self.failed += 1
            print("FAIL  %s\n      %s" % (title, err))
        return err is None

    def summary(self):
        """Prints the suite's summary line; returns 0 when every check passed, else 1."""
        print("interop: %d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0
