"""The tile classifier network: a small residual CNN with a class head and a rotation head.

Input: (N, 3, S, S) float BGR in [0, 1], a tile crop whose long side is vertical.
Outputs: class logits (N, 43), rotation logits (N, 4): how many quarter turns clockwise
the tile in the crop is from upright, and number logits (N, 4): the number 1-4 printed on a
flower or season tile (meaningless on other tiles; sets disagree on which plant carries which).
"""
from __future__ import annotations

import math

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


class TileEnsemble(nn.Module):
    """Several TileNets read every crop; each head answers the log of the members' mean
    probabilities (an arithmetic mean: one member's confident answer is not vetoed by another's
    doubt, as a mean of logits would veto it). Log-probabilities are logits to a softmax and to
    cross-entropy, so serving, export and adapt take an ensemble as they take one TileNet.

    Measured (models/README.md, "Classifier ensembles"): the arithmetic mean kept the real
    unfamiliar set's figure where the mean of logits lost three points of it.

    >>> net = TileEnsemble([TileNet(), TileNet()]).eval()
    >>> [tuple(o.shape) for o in net(torch.zeros(2, 3, CLS_INPUT, CLS_INPUT))]
    [(2, 43), (2, 4), (2, 4)]
    """

    def __init__(self, members: list[TileNet]):
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, x):
        outs = [m(x) for m in self.members]
        log_n = math.log(len(self.members))
        return tuple(torch.logsumexp(torch.stack([torch.log_softmax(h, 1) for h in head]), 0) - log_n
                     for head in zip(*outs))


def member_count(state: dict) -> int:
    """Members of an ensemble's state dict (keys members.<i>.*); 0 for one TileNet's."""
    idx = {k.split(".")[1] for k in state if k.startswith("members.")}
    return len(idx)


def member_state(state: dict, i: int) -> dict:
    """Member i's own state within an ensemble's state dict."""
    prefix = f"members.{i}."
    return {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}


def load_classifier(path) -> nn.Module:
    """The classifier saved at path, one TileNet or a TileEnsemble, in eval mode."""
    state = torch.load(path, map_location="cpu")
    n = member_count(state)
    if not n:
        net = TileNet()
        _load_state(net, state, path)
        return net.eval()
    members = []
    for i in range(n):
        member = TileNet()
        _load_state(member, member_state(state, i), f"{path} member {i}")
        members.append(member)
    return TileEnsemble(members).eval()


def first_member(path) -> TileNet:
    """The classifier at path, or its first member if it is an ensemble (a starting point for
    networks built from the classifier's weights, such as the flower reader)."""
    net = load_classifier(path)
    return net.members[0] if isinstance(net, TileEnsemble) else net


def _load_state(net: TileNet, state: dict, where) -> list[str]:
    """Load state into net; weights of heads the state predates (the number head) stay as
    initialised. Returns the names of the parameters left so."""
    missing, unexpected = net.load_state_dict(state, strict=False)
    if unexpected or any(not k.startswith("num_head.") for k in missing):
        raise ValueError(f"{where}: not a TileNet state (missing {missing}, unexpected {unexpected})")
    return list(missing)


def load_weights(net: TileNet, path) -> list[str]:
    """Load a state dict into one TileNet (an ensemble's first member: a training round starts
    from it); weights of heads the file predates (the number head) stay as initialised.
    Returns the names of the parameters left so."""
    state = torch.load(path, map_location="cpu")
    return _load_state(net, member_state(state, 0) if member_count(state) else state, path)


def export_onnx(net: nn.Module, path, size: int = CLS_INPUT) -> None:
    net = net.eval().cpu()
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(net, dummy, str(path), input_names=["image"], output_names=["cls", "rot", "num"],
                      dynamic_axes={"image": {0: "n"}, "cls": {0: "n"}, "rot": {0: "n"}, "num": {0: "n"}}, opset_version=17,
                      dynamo=False)
