"""Named values that the book quotes in more than one place: one home each.

Every default argument, chapter and browser twin that uses one of these values reads it from here (the JS twin's
defaults and the browser figures' ``data-eps`` attributes are tested against this module). One name per value, one
value per name:

* :data:`PAPER_EPS`: the smoothing ε inside the root of the paper's group standard deviation,
  ``(r - mean) / sqrt(var + ε)`` (Mroueh 2025, Eq. 4 and the figures of Sec. 3-4, which all use ε = 1e-5).
* :data:`TRL_STD_EPS`: TRL's smoothing of the group advantage, ``(r - mean) / (std + 1e-4)``, added *outside* the
  root to the standard deviation with Bessel's correction (``GRPOTrainer`` of TRL 1.16).
* :data:`CLIP_EPS`: the clip range ε of PPO's clipped term, ratio in [1 - 0.2, 1 + 0.2] (Schulman et al. 2017;
  TRL's ``epsilon`` default and the range of every symmetric method of the GRPO family).
* :data:`DAPO_CLIP_EPS_HIGH`: DAPO's "clip-higher" upper range 0.28, the lower staying at :data:`CLIP_EPS`
  (Yu et al. 2025; TRL's ``epsilon_high=0.28``).
* :data:`CISPO_WEIGHT_CAP`: CISPO's cap on the detached importance weight, min(x, 5) (MiniMax 2025; TRL's
  ``loss_type="cispo", epsilon_high=5.0``).
* :data:`GSPO_CLIP_EPS`, :data:`GSPO_CLIP_EPS_HIGH`: GSPO's clip range (3e-4, 4e-4) on its sequence-level ratio
  (Zheng et al. 2025, the values TRL's documentation gives for ``importance_sampling_level="sequence"``).
* :data:`PRACTICAL_BETA`: the KL weight β = 0.04 of DeepSeekMath's GRPO (Shao et al. 2024; TRL's default up to
  version 0.18).
"""

from __future__ import annotations

__all__ = [
    "CISPO_WEIGHT_CAP",
    "CLIP_EPS",
    "DAPO_CLIP_EPS_HIGH",
    "GSPO_CLIP_EPS",
    "GSPO_CLIP_EPS_HIGH",
    "PAPER_EPS",
    "PRACTICAL_BETA",
    "TRL_STD_EPS",
]

PAPER_EPS: float = 1e-5
TRL_STD_EPS: float = 1e-4
CLIP_EPS: float = 0.2
DAPO_CLIP_EPS_HIGH: float = 0.28
CISPO_WEIGHT_CAP: float = 5.0
GSPO_CLIP_EPS: float = 3e-4
GSPO_CLIP_EPS_HIGH: float = 4e-4
PRACTICAL_BETA: float = 0.04
