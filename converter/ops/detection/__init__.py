"""Object-detection ops: PriorBox, PriorBoxClustered, DetectionOutput, ROIAlign, ROIPooling,
PSROIPooling, DeformablePSROIPooling, RegionYolo, ReorgYolo, Proposal, and the
ExperimentalDetectron* ops."""

from converter.ops.detection import (
    deformable_psroi_pooling,
    detection_output,
    experimental_detectron,
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
    "deformable_psroi_pooling", "detection_output", "experimental_detectron", "prior_box",
    "prior_box_clustered", "proposal", "psroi_pooling", "region_yolo", "reorg_yolo", "roi_align",
    "roi_pooling",
]
