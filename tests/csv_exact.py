"""Reading the command line's CSV outputs back exactly."""


def read_csv_exact(pd, path):
    """``pd.read_csv`` with every float as written: pandas' default parser
    before 3.0 may be one unit in the last place off (``round_trip`` is
    exact; pandas 3 deprecates the option, its default being exact)."""
    major = int(pd.__version__.split(".")[0])
    return pd.read_csv(path, **({"float_precision": "round_trip"} if major < 3 else {}))
