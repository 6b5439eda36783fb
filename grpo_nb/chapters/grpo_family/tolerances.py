"""The tolerances of the chapter "The GRPO family": float64 throughout, TRL's float32 advantages."""

TOL = 1e-12  # float64 throughout
TOL_TRL = 1e-6  # TRL computes its advantages in float32
