"""Premade (canned) estimators: DNN, Linear, wide-and-deep and Baseline, with TF1 heads."""
from estimator_npu.estimator.canned.estimators import (BaselineClassifier,  # noqa: F401
                                                       BaselineRegressor, DNNClassifier,
                                                       DNNLinearCombinedClassifier,
                                                       DNNLinearCombinedRegressor,
                                                       DNNRegressor, LinearClassifier,
                                                       LinearRegressor)
