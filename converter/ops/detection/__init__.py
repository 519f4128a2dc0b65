"""Object-detection ops: PriorBox, DetectionOutput, ROIAlign, ROIPooling."""

from converter.ops.detection import detection_output, prior_box, roi_align, roi_pooling

__all__ = ["detection_output", "prior_box", "roi_align", "roi_pooling"]
