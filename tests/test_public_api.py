"""The public API is a small, curated list: adding to it is a decision, so it is tested."""

from __future__ import annotations

import elision
import elision.errors


def test_all_is_sorted_and_exact() -> None:
    assert elision.__all__ == sorted(elision.__all__)
    public = {name for name in vars(elision) if not name.startswith("_")}
    # Submodules are attributes too once imported; the API is what __all__ lists.
    modules = {name for name in public if type(getattr(elision, name)).__name__ == "module"}
    assert set(elision.__all__) == public - modules


def test_every_error_is_an_elision_error_and_drawn_in_the_docstring() -> None:
    doc = elision.errors.__doc__ or ""
    for name, value in vars(elision.errors).items():
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, elision.errors.ElisionError), name
            assert name in doc, f"{name} is missing from the hierarchy drawn in errors.py"
