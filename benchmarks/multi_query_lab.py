"""Lab: does splitting a support-ticket query into its clauses help dense retrieval?

Each query is split at sentence ends, ';' and ' -- ' (pieces of 12+ characters);
the dense list ranks chunks by the best cosine over the whole query and its
pieces ("mq") or by the mean of their vectors ("mqmean"), fused with BM25 by RRF
k=60 like the port. Parameter-free, so no cross-validation is needed. Reads an
existing strategy-E index of eval/rustbook (e.g. reports/eval/indexes/E):

    .venv/bin/python benchmarks/multi_query_lab.py reports/eval/indexes/E
"""
import re
import sys

import numpy as np

from citeline.eval import metrics, stats
from citeline.eval.groundtruth import load_ground_truth
from citeline.pipeline import Index
from citeline.retrieve.bm25 import tokenize
from citeline.retrieve.fuse import rrf

gt = load_ground_truth("eval/rustbook")
idx = Index(sys.argv[1] if len(sys.argv) > 1 else "reports/eval/indexes/E")
emb = idx.embedder
key = emb.identity.key
store = idx.store
SPLIT = re.compile(r"(?<=[?.;!])\s+|\s+--\s+|;\s*")
def pieces(q):
    ps = [p.strip() for p in SPLIT.split(q) if len(p.strip()) >= 12]
    return [q] + (ps if len(ps) > 1 else [])
rows = {c.id: c for c in store.all_chunks()}
def rank_of(ids, needle):
    return metrics.first_correct_rank([rows[i].content for i in ids], needle)
res = {"port": [], "mq": [], "mqmean": []}
phr = []
for q in gt.questions:
    for ph, text in q.queries:
        phr.append(ph)
        ps = pieces(text)
        V = emb.embed(ps)
        dense_full = store.dense(V[0], 200, key)
        bm = store.bm25(tokenize(text), 200)
        port = rrf([[i for i,_ in dense_full],[i for i,_ in bm]], k=60)[:20]
        res["port"].append(rank_of([i for i,_ in port], q.needle))
        # max over pieces
        cand = {}
        for v in V:
            for i, s in store.dense(v, 200, key):
                cand[i] = max(cand.get(i, -9), s)
        dmq = sorted(cand, key=lambda i: -cand[i])[:200]
        mq = rrf([dmq, [i for i,_ in bm]], k=60)[:20]
        res["mq"].append(rank_of([i for i,_ in mq], q.needle))
        vm = V.mean(0); vm /= np.linalg.norm(vm)
        dm = store.dense(vm, 200, key)
        mm = rrf([[i for i,_ in dm],[i for i,_ in bm]], k=60)[:20]
        res["mqmean"].append(rank_of([i for i,_ in mm], q.needle))
for name, r in res.items():
    out = {f"R@{k}": round(sum(1 for x in r if x and x <= k)/len(r),3) for k in (1,4,8,20)}
    out["MRR"] = round(sum(1/x for x in r if x)/len(r),3)
    for ph in ("course","ticket"):
        rr=[x for x,p in zip(r,phr) if p==ph]
        out[ph+" R@4"] = round(sum(1 for x in rr if x and x<=4)/len(rr),3)
    print(name, out)
for name in ("mq","mqmean"):
    for k in (4,20):
        a=[bool(x and x<=k) for x in res[name]]; b=[bool(x and x<=k) for x in res["port"]]
        print(name, k, stats.paired(a,b).to_json())
