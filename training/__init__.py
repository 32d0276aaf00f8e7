"""Training and evaluation of the detector: datasets to checkpoints to models/, and the figures that measure them."""
