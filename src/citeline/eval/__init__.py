"""Retrieval evaluation: ``citeline eval`` and ``citeline calibrate``.

groundtruth  load + validate a ground-truth folder (file:line errors, before any indexing)
metrics      recall@k, MRR, destroyed, budgeted recall (pure)
stats        Wilson intervals, exact sign test (pure)
sweep        the refusal-threshold sweep and its proposal (pure)
cache        an Embedder that embeds each distinct text once per model, across runs
harness      builds a real index per strategy and queries it per mode
report       report.md, report.json and the plots
"""
