"""Object-detection ops: PriorBox, PriorBoxClustered, DetectionOutput, ROIAlign, ROIPooling,
PSROIPooling, RegionYolo, ReorgYolo, Proposal."""

from converter.ops.detection import (
    detection_output,
    prior_box,
    prior_box_clustered,
    proposal,
    psroi_pooling,
    region_yolo,
    reorg_yolo,
    roi_align,
    roi_pooling,
)

__all__ = [
    "detection_output", "prior_box", "prior_box_clustered", "proposal", "psroi_pooling",
    "region_yolo", "reorg_yolo", "roi_align", "roi_pooling",
]
