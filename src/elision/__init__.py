"""elision: make the results of LLM agent tools fit a size budget honestly."""

from elision.budget import Budget
from elision.errors import (
    BudgetError,
    ElisionError,
    InputError,
    RefExpired,
    RefNotFound,
    SelectorError,
    StoreError,
)
from elision.pipeline import Pipeline
from elision.shape import Shaped, shape

__all__ = [
    "Budget",
    "BudgetError",
    "ElisionError",
    "InputError",
    "Pipeline",
    "RefExpired",
    "RefNotFound",
    "SelectorError",
    "Shaped",
    "StoreError",
    "shape",
]
