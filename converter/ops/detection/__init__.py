"""Object-detection ops: PriorBox, DetectionOutput."""

from converter.ops.detection import detection_output, prior_box

__all__ = ["detection_output", "prior_box"]
