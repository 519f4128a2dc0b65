"""PyTorch as a converter framework: torch.export programs (.pt2), TorchScript archives and
torch.nn.Modules (through torch.export), their ATen ops translated into opset ops."""
