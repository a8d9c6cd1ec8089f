"""What a selector that passes its fit parameters on to the estimator it
wraps tells scikit-learn's metadata routing (``enable_metadata_routing``),
as ``SelectFromModel`` and ``RFE`` do: the estimator's requests (say
``set_fit_request(sample_weight=True)``) decide what reaches its ``fit``.
Without routing, every fit parameter goes to it as given."""

from __future__ import annotations

from sklearn import get_config
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing


def routing_enabled() -> bool:
    """Whether scikit-learn's metadata routing is on (``set_config``)."""
    return bool(get_config().get("enable_metadata_routing", False))


class RoutesFitParams:
    """A selector with an ``estimator`` parameter whose ``fit`` gets
    ``**fit_params``. Without an estimator (a booster chosen from ``y``,
    which a user cannot ask for anything) every fit parameter of the
    boosters is requested, as without routing."""

    def get_metadata_routing(self):
        """How ``fit`` routes its parameters under scikit-learn's metadata
        routing: to the estimator's ``fit``, as it requests them (a
        ``MetadataRouter``)."""
        from .estimators import SparseBoostRegressor

        estimator = self.estimator
        if estimator is None:
            estimator = SparseBoostRegressor()
            if routing_enabled():
                names = ("sample_weight", "eval_set", "eval_sample_weight")
                estimator.set_fit_request(**dict.fromkeys(names, True))
        # (fit_transform calls fit: scikit-learn 1.6's Pipeline routes a
        # transformer's fit parameters to its fit_transform.)
        mapping = MethodMapping().add(caller="fit", callee="fit")
        mapping = mapping.add(caller="fit_transform", callee="fit")
        return MetadataRouter(owner=type(self).__name__).add(
            estimator=estimator, method_mapping=mapping
        )

    def _routed_fit_params(self, fit_params: dict) -> dict:
        """The parameters for the estimator's ``fit``: those it requested
        when routing is on (an error names any it did not), else all."""
        if not routing_enabled():
            return fit_params
        return dict(process_routing(self, "fit", **fit_params).estimator.fit)
