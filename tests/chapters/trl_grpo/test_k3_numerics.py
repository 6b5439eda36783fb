"""The share of TRL's float32 k3 values below 0 rests on the last bit of the machine's float32 exp near 1; the share
with a correctly rounded exp (``GradientError.negative_share_rounded``) does not, and is what the chapter asserts."""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode

from grpo_nb.chapters.trl_grpo.k3_numerics import gradient_error


class ExpRoundedDown(TorchFunctionMode):
    """torch.exp one unit in the last place towards 0, as an exp that rounds down near 1 would give."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if getattr(func, "__name__", "") == "exp":
            with torch.no_grad():
                step = torch.nextafter(out, torch.zeros_like(out)) - out
            out = out + step
        return out


def test_the_rounded_share_is_the_same_whatever_exp_does_and_the_machine_share_is_not():
    here = gradient_error(1e-4, n=20_000)
    with ExpRoundedDown():
        down = gradient_error(1e-4, n=20_000)
    assert 0 < here.negative_share_rounded < 0.01 and here.negative_share_rounded == down.negative_share_rounded
    assert down.negative_share > 0.5 > 0.01 > here.negative_share  # the chapter's old "< 1%" rested on exp
    assert gradient_error(1e-2, n=20_000).negative_share_rounded == 0
