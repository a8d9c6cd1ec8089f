"""What ``sparseboost select`` shows while it works: a line per stage, and
during a fit a tqdm bar over the boosting rounds whose tail shows the
features selected so far and the validation metric (tqdm adds the time
left). ``--quiet`` silences both. Everything goes to stderr, so that
stdout holds only the summary."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.started = time.perf_counter()
        self.history = []  # the fit's RoundReports, for the selection-path plot

    def stage(self, message: str) -> None:
        if not self.quiet:
            elapsed = time.perf_counter() - self.started
            print(f"[{elapsed:6.1f} s] {message}", file=sys.stderr, flush=True)

    def note(self, message: str) -> None:
        """Something the reading changed that the user should know (also
        kept in ``metrics.json``)."""
        self.stage(f"note: {message}")

    def rounds(self, total: int, label: str):
        """A callback for the estimators' ``callbacks``; call ``close`` after
        the fit. It records every round, shown or not."""
        self.history = []
        bar = None
        if not self.quiet:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=label, unit="round", file=sys.stderr, leave=True)

        def callback(report):
            self.history.append(report)
            if bar is not None:
                postfix = {"features": report.n_features}
                for metrics in report.eval.values():
                    for name, value in metrics.items():
                        postfix[f"val {name}"] = f"{value:.4f}"
                bar.set_postfix(postfix, refresh=False)
                bar.update(1)
            return False

        def close():
            if bar is not None:
                bar.close()

        callback.close = close
        return callback
