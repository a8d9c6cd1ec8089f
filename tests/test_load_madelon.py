"""``sparseboost.datasets.load_madelon``: the shipped Madelon rows, as the
command line's default reads them."""

import numpy as np
import pytest
from sparseboost.cli.readers import madelon_path
from sparseboost.datasets import load_madelon


def test_splits_stack_into_all_and_labels_are_0_1():
    X, y = load_madelon()
    X_train, y_train = load_madelon("train")
    X_valid, y_valid = load_madelon("valid")
    assert X.shape == (2600, 500) and X.dtype == np.float64
    assert X_train.shape == (2000, 500) and X_valid.shape == (600, 500)
    np.testing.assert_array_equal(np.vstack([X_train, X_valid]), X)
    np.testing.assert_array_equal(np.concatenate([y_train, y_valid]), y)
    assert set(np.unique(y)) == {0, 1}
    # The file's -1/+1 labels and integers, unchanged but for the encoding.
    with np.load(madelon_path()) as data:
        np.testing.assert_array_equal(y, (data["y"] > 0).astype(int))
        np.testing.assert_array_equal(X, data["X"])
    # Balanced, as the challenge made it.
    assert y_train.mean() == 0.5


@pytest.mark.parametrize("split", ["test", None, 1, "ALL"])
def test_a_bad_split_is_named(split):
    with pytest.raises(ValueError, match="split must be 'all', 'train' or 'valid'"):
        load_madelon(split)
