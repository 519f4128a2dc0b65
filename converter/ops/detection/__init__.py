"""Object-detection ops: PriorBox, DetectionOutput, ROIAlign."""

from converter.ops.detection import detection_output, prior_box, roi_align

__all__ = ["detection_output", "prior_box", "roi_align"]
