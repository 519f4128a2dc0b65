"""The torchvision modules of tests/torch_corpus.py (tests/torch_sequence_models.py has the
others). Each builder returns the module in eval mode, two sets of example inputs and the
(input names, output names) of its export; builders import torch, so only the corpus's child
process calls them."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["LARGE_BUILDERS", "VISION_BUILDERS", "randomize_norms"]


def randomize_norms(module, sample: tuple) -> None:
    """Affine norm parameters drawn at random, batch-norm statistics from one forward pass
    over `sample` (momentum 1: the batch's own mean and variance)."""
    import torch

    norms = [m for m in module.modules() if isinstance(
        m, torch.nn.modules.batchnorm._BatchNorm | torch.nn.LayerNorm | torch.nn.GroupNorm)]
    with torch.no_grad():
        for m in norms:
            if getattr(m, "weight", None) is not None:
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
        batch_norms = [m for m in norms if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
        if batch_norms:
            for m in batch_norms:
                m.momentum = 1.0
                m.train()
            module(*sample)
    module.eval()


def _image(side: int, batch: int = 1, count: int = 2) -> list[tuple]:
    import torch

    return [(torch.randn(batch, 3, side, side),) for _ in range(count)]


def _classifier(name: str, side: int, **kwargs) -> Callable:
    def build():
        from tests.torchvision_ops import import_torchvision

        tv = import_torchvision()
        module = getattr(tv.models, name)(weights=None, num_classes=10, **kwargs).eval()
        args, args2 = _image(side)
        randomize_norms(module, _image(side, batch=4, count=1)[0])
        return module, args, args2, (["x"], ["logits"])
    return build


def _vit():
    import torch

    from tests.torchvision_ops import import_torchvision

    tv = import_torchvision()
    module = tv.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                         hidden_dim=32, mlp_dim=64, num_classes=10)
    torch.nn.init.normal_(module.heads.head.weight, std=0.2)  # torchvision starts it at zero
    randomize_norms(module, ())
    args, args2 = _image(32)
    return module, args, args2, (["x"], ["logits"])


def _lraspp():
    from tests.torchvision_ops import import_torchvision

    tv = import_torchvision()
    module = tv.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=4)
    randomize_norms(module, _image(64, batch=4, count=1)[0])
    args, args2 = _image(64)
    return _pick(module, "out"), args, args2, (["x"], ["out"])


def _pick(module, key: str):
    """module's output `key`, or for a detector its one image's boxes, scores and labels."""
    import torch

    class Pick(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = module

        def forward(self, x):
            if key:
                return self.inner(x)[key]
            found = self.inner([x])[0]
            return found["boxes"], found["scores"], found["labels"]

    return Pick().eval()


def _detector(name: str, **kwargs) -> Callable:
    def build():
        import torch

        from tests.torchvision_ops import import_torchvision

        tv = import_torchvision()
        module = getattr(tv.models.detection, name)(
            weights=None, weights_backbone=None, num_classes=5, **kwargs).eval()
        randomize_norms(module, ([torch.rand(3, 320, 320) for _ in range(2)],))
        args, args2 = ((torch.rand(3, 320, 320),) for _ in range(2))
        wrapped = _pick(module, "")
        return wrapped, args, args2, (["image"], ["boxes", "scores", "labels"])
    return build


VISION_BUILDERS: dict[str, Callable] = {
    "resnet18": _classifier("resnet18", 64),
    "mobilenet_v3_small": _classifier("mobilenet_v3_small", 64),
    "efficientnet_b0": _classifier("efficientnet_b0", 64),
    "convnext_tiny": _classifier("convnext_tiny", 64),
    "vit": _vit,
    "ssdlite320": _detector("ssdlite320_mobilenet_v3_large", detections_per_img=20,
                            score_thresh=0.05),
    "fasterrcnn": _detector("fasterrcnn_mobilenet_v3_large_320_fpn", box_detections_per_img=20,
                            rpn_pre_nms_top_n_test=200, rpn_post_nms_top_n_test=100),
    "lraspp": _lraspp,
}

# full-size models for single checks, outside the corpus's conversion runs (ViT-B/16: 330 MB)
LARGE_BUILDERS: dict[str, Callable] = {
    "vit_b_16": _classifier("vit_b_16", 224),
}
