"""A tiny tinygrad suite for the dispatch-tool tests (run on MOCKKFD by `gpubench run`; not collected
by the repository's own test run)."""
from tinygrad import Tensor


def test_add():
    a, b = Tensor([1.0, 2.0, 3.0, 4.0]), Tensor([10.0, 20.0, 30.0, 40.0])
    assert (a + b).numpy().tolist() == [11.0, 22.0, 33.0, 44.0]


def test_matmul():
    rows = [[float(4 * i + j) for j in range(4)] for i in range(4)]
    expected = [[sum(rows[i][k] * rows[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
    assert (Tensor(rows) @ Tensor(rows)).numpy().tolist() == expected
