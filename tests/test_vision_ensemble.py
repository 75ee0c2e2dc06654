"""The classifier as an ensemble of TileNets: saved, loaded, exported and adapted as one net."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.cls_net import (TileEnsemble, TileNet, export_onnx, first_member,  # noqa: E402
                              load_classifier, member_count)
from vision.crops import CLS_INPUT  # noqa: E402
from vision.model import CLASSIFIER_FIRST_FILE, ENSEMBLE_ID  # noqa: E402


def _nets(seed: int = 0, n: int = 2) -> list[TileNet]:
    torch.manual_seed(seed)
    return [TileNet().eval() for _ in range(n)]


def _inputs(n: int = 3) -> torch.Tensor:
    return torch.rand(n, 3, CLS_INPUT, CLS_INPUT, generator=torch.Generator().manual_seed(1))


def test_ensemble_averages_each_heads_probabilities():
    a, b = _nets()
    x = _inputs()
    with torch.no_grad():
        got = TileEnsemble([a, b]).eval()(x)
        for head, (la, lb) in zip(got, zip(a(x), b(x))):
            want = (torch.softmax(la, 1) + torch.softmax(lb, 1)) / 2
            assert torch.allclose(torch.softmax(head, 1), want, atol=1e-6)
            assert torch.allclose(torch.exp(head).sum(1), torch.ones(len(x)), atol=1e-5)  # log-probabilities


def _class_bias(net: TileNet, cls: int, bias: float) -> None:
    net.cls_head.weight.zero_()
    net.cls_head.bias.zero_()
    net.cls_head.bias[cls] = bias


def test_a_sure_member_is_not_vetoed_by_a_doubting_one():
    """An arithmetic mean: one member sure of class 5, the other mildly against it, reads 5
    (a mean of logits, 6 and -8, would have read some other class)."""
    a, b = _nets()
    with torch.no_grad():
        _class_bias(a, 5, 6.0)
        _class_bias(b, 5, -8.0)
        p = torch.softmax(TileEnsemble([a, b]).eval()(_inputs(1))[0], 1)
    assert int(p.argmax()) == 5


def test_two_members_that_agree_read_as_one():
    a, b = _nets()
    with torch.no_grad():
        b.load_state_dict(a.state_dict())
        x = _inputs()
        for head, one in zip(TileEnsemble([a, b]).eval()(x), a(x)):
            assert torch.allclose(head, torch.log_softmax(one, 1), atol=1e-5)


def test_save_and_load_round_trip(tmp_path):
    net = TileEnsemble(_nets()).eval()
    torch.save(net.state_dict(), tmp_path / "classifier.pt")
    assert member_count(torch.load(tmp_path / "classifier.pt")) == 2
    back = load_classifier(tmp_path / "classifier.pt")
    assert isinstance(back, TileEnsemble) and len(back.members) == 2
    x = _inputs()
    with torch.no_grad():
        assert torch.equal(back(x)[0], net(x)[0])
    assert torch.equal(first_member(tmp_path / "classifier.pt").cls_head.weight, net.members[0].cls_head.weight)


def test_one_tilenet_loads_as_itself(tmp_path):
    (one,) = _nets(n=1)
    torch.save(one.state_dict(), tmp_path / "classifier.pt")
    assert member_count(one.state_dict()) == 0
    back = load_classifier(tmp_path / "classifier.pt")
    assert type(back) is TileNet
    assert first_member(tmp_path / "classifier.pt").cls_head.weight.equal(one.cls_head.weight)


def test_a_broken_member_is_refused(tmp_path):
    state = TileEnsemble(_nets()).state_dict()
    del state["members.1.cls_head.weight"]
    torch.save(state, tmp_path / "classifier.pt")
    with pytest.raises(ValueError, match="member 1"):
        load_classifier(tmp_path / "classifier.pt")


def test_exported_ensemble_reads_as_torch_does(tmp_path):
    from vision.runtime import make_session

    net = TileEnsemble(_nets()).eval()
    export_onnx(net, tmp_path / "classifier.onnx")
    x = _inputs(4)
    cls, rot, num = make_session(tmp_path / "classifier.onnx").run(None, {"image": x.numpy()})
    with torch.no_grad():
        want = net(x)
    for got, ref in zip((cls, rot, num), want):
        assert np.allclose(got, ref.numpy(), atol=1e-4)


def test_adapt_tunes_an_installed_ensemble(tmp_path):
    """adapt loads whatever classifier is installed: asked for all members, it fine-tunes every
    member through the mean."""
    import training.adapt as adapt

    net = TileEnsemble(_nets())
    torch.save(net.state_dict(), tmp_path / adapt.WEIGHTS_FILE)
    loaded = adapt.tunable_net(tmp_path, "all")
    assert isinstance(loaded, TileEnsemble)
    before = [m.cls_head.weight.clone() for m in loaded.members]
    crops = (np.random.default_rng(0).random((6, 96, 96, 3)) * 255).astype(np.uint8)
    tuned = adapt.fine_tune(loaded, crops, np.array([0, 0, 1, 1, 2, 2]), epochs=1, steps_per_epoch=2, batch=8)
    assert all(not torch.equal(m.cls_head.weight, w) for m, w in zip(tuned.members, before))


def test_adapt_tunes_the_leading_member_alone_by_default(tmp_path):
    """By default adapt fine-tunes the member serving reads every crop with first
    (training/ensemble.LEAD), and installs it alone; one network is tuned as it is."""
    import training.adapt as adapt
    from training import ensemble

    nets = _nets(n=3)
    torch.save(TileEnsemble(nets).state_dict(), tmp_path / adapt.WEIGHTS_FILE)
    lead = adapt.tunable_net(tmp_path)
    assert isinstance(lead, TileNet) and torch.equal(lead.cls_head.weight, nets[ensemble.LEAD].cls_head.weight)
    torch.save(nets[0].state_dict(), tmp_path / adapt.WEIGHTS_FILE)
    one = adapt.tunable_net(tmp_path)
    assert isinstance(one, TileNet) and torch.equal(one.cls_head.weight, nets[0].cls_head.weight)


def test_a_training_round_starts_from_an_ensembles_first_member(tmp_path):
    from training.cls_net import load_weights

    net = TileEnsemble(_nets())
    torch.save(net.state_dict(), tmp_path / "classifier.pt")
    one = TileNet()
    load_weights(one, tmp_path / "classifier.pt")
    assert torch.equal(one.cls_head.weight, net.members[0].cls_head.weight)


def test_build_installs_the_classifier_and_a_round_as_one_int8_net(tmp_path):
    """python -m vision train's members stage: the installed classifier (its first member when it
    is already an ensemble) and the rounds given, saved and exported as one net."""
    from training import ensemble
    from vision.runtime import make_session

    first, round_ = _nets(n=2)
    models = tmp_path / "models"
    models.mkdir()
    torch.save(first.state_dict(), models / "classifier.pt")
    torch.save(round_.state_dict(), tmp_path / "round.pt")
    crops = (np.random.default_rng(0).random((40, 96, 96, 3)) * 255).astype(np.uint8)
    ensemble.build(models, [tmp_path / "round.pt"], crops)
    ensemble.build(models, [tmp_path / "round.pt"], crops)  # again: still two members, not three
    installed = load_classifier(models / "classifier.pt")
    assert isinstance(installed, TileEnsemble) and len(installed.members) == 2
    assert torch.equal(installed.members[0].cls_head.weight, first.cls_head.weight)
    assert torch.equal(installed.members[1].cls_head.weight, round_.cls_head.weight)
    cls, rot, num = make_session(models / "classifier.onnx").run(None, {"image": _inputs(2).numpy()})
    assert cls.shape == (2, 43) and rot.shape == (2, 4) and num.shape == (2, 4)
    assert np.allclose(np.exp(cls).sum(1), 1, atol=0.05)  # log-probabilities, through int8
    # the leading member (the last) alone beside it, tagged as this ensemble's
    ids = {make_session(models / name).get_modelmeta().custom_metadata_map[ENSEMBLE_ID]
           for name in ("classifier.onnx", CLASSIFIER_FIRST_FILE)}
    assert len(ids) == 1
    lead = make_session(models / CLASSIFIER_FIRST_FILE).run(None, {"image": _inputs(2).numpy()})[0]
    got = torch.softmax(torch.from_numpy(lead), 1)
    with torch.no_grad():
        off = {name: float((got - torch.softmax(net(_inputs(2))[0], 1)).abs().max()) for name, net in
               (("round", round_), ("first", first))}
    assert off["round"] < off["first"], off


def test_one_network_or_an_adapted_ensemble_leaves_no_first_member(tmp_path):
    from training import ensemble

    crops = (np.random.default_rng(0).random((40, 96, 96, 3)) * 255).astype(np.uint8)
    ensemble.install(TileEnsemble(_nets()), tmp_path, crops)
    assert (tmp_path / CLASSIFIER_FIRST_FILE).exists()
    ensemble.install(_nets(n=1)[0], tmp_path, crops)
    assert not (tmp_path / CLASSIFIER_FIRST_FILE).exists()
    (tmp_path / CLASSIFIER_FIRST_FILE).write_bytes(b"an earlier ensemble's leading member")
    ensemble.install(TileEnsemble(_nets()), tmp_path, crops, cascade=False)  # as adapt installs
    assert not (tmp_path / CLASSIFIER_FIRST_FILE).exists()


def test_an_install_stopped_mid_write_leaves_the_installed_model_whole(tmp_path, monkeypatch):
    """The app loads a model file whenever it changes: adapt writes each file beside its place and
    renames it over (training/model_files.py), so a run stopped while quantizing (memory running
    out on a Pi) leaves the old file whole and no part file behind."""
    from training import ensemble

    crops = (np.random.default_rng(0).random((40, 96, 96, 3)) * 255).astype(np.uint8)
    ensemble.install(_nets(n=1)[0], tmp_path, crops)
    before = (tmp_path / "classifier.onnx").read_bytes()

    def out_of_memory(path, *a, **k):
        Path(path).write_bytes(b"half an int8 model")
        raise MemoryError

    monkeypatch.setattr(ensemble, "quantize_classifier", out_of_memory)
    with pytest.raises(MemoryError):
        ensemble.install(_nets(n=1)[0], tmp_path, crops)
    assert (tmp_path / "classifier.onnx").read_bytes() == before
    assert not [p.name for p in tmp_path.iterdir() if ".part" in p.name]
