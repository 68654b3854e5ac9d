"""Hooks that sphinx-gallery calls around every example (named in ``reset_modules``)."""

import warnings

_active: list[warnings.catch_warnings] = []


def reset_torch(gallery_conf: dict, fname: str | None, when: str) -> None:
    """Give every example the same fresh state, and make any stray warning an error.

    Before an example: fixed seed, default print options, and warnings raised as errors, so that a
    warning the page does not catch on purpose fails the build instead of slipping into an output
    block. After it: the build's own warning filters come back.
    """
    import torch

    if when == "before":
        torch.manual_seed(0)
        torch.set_printoptions(profile="default")
        guard = warnings.catch_warnings()
        guard.__enter__()
        warnings.simplefilter("error")
        _active.append(guard)
    else:
        while _active:
            _active.pop().__exit__(None, None, None)
