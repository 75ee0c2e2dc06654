"""The tile classifier network: a small residual CNN with a class head and a rotation head.

Input: (N, 3, S, S) float BGR in [0, 1], a tile crop whose long side is vertical.
Outputs: class logits (N, 43), rotation logits (N, 4): how many quarter turns clockwise
the tile in the crop is from upright, and number logits (N, 4): the number 1-4 printed on a
flower or season tile (meaningless on other tiles; sets disagree on which plant carries which).
"""
from __future__ import annotations

import torch
from torch import nn

from vision.classes import NUM_CLASSES
from vision.crops import CLS_INPUT

NUM_PRINTED = 4  # flower and season tiles print 1-4


def conv_bn(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Residual(nn.Module):
    def __init__(self, ch: int):
        super().__init__()
        self.body = nn.Sequential(conv_bn(ch, ch, 1), nn.Conv2d(ch, ch, 3, 1, 1, bias=False), nn.BatchNorm2d(ch))
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(x + self.body(x))


class TileNet(nn.Module):
    def __init__(self, num_classes: int = NUM_CLASSES, width: int = 32):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            conv_bn(3, w, 2), Residual(w),
            conv_bn(w, 2 * w, 2), Residual(2 * w),
            conv_bn(2 * w, 4 * w, 2), Residual(4 * w),
            conv_bn(4 * w, 6 * w, 2), conv_bn(6 * w, 6 * w, 1),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.drop = nn.Dropout(0.2)
        self.cls_head = nn.Linear(6 * w, num_classes)
        self.rot_head = nn.Linear(6 * w, 4)
        self.num_head = nn.Linear(6 * w, NUM_PRINTED)

    def forward(self, x):
        f = self.drop(self.features(x))
        return self.cls_head(f), self.rot_head(f), self.num_head(f)


def load_weights(net: TileNet, path) -> list[str]:
    """Load a state dict; weights of heads the file predates (the number head) stay as
    initialised. Returns the names of the parameters left so."""
    missing, unexpected = net.load_state_dict(torch.load(path, map_location="cpu"), strict=False)
    if unexpected or any(not k.startswith("num_head.") for k in missing):
        raise ValueError(f"{path}: not a TileNet state (missing {missing}, unexpected {unexpected})")
    return list(missing)


def export_onnx(net: TileNet, path, size: int = CLS_INPUT) -> None:
    net = net.eval().cpu()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(net, dummy, str(path), input_names=["image"], output_names=["cls", "rot", "num"],
                      dynamic_axes={"image": {0: "n"}, "cls": {0: "n"}, "rot": {0: "n"}, "num": {0: "n"}}, opset_version=17,
                      dynamo=False)
