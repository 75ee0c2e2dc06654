"""The runtime every network here runs on: onnxruntime on the CPU, one way for all of them.

Serving needs nothing else (no torch); a session is made once and its run() is thread-safe.
"""
from __future__ import annotations

from pathlib import Path


def make_session(path: Path, threads: int = 2):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # several sessions share two cores: idle threads must sleep, not spin
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
