"""Top-10 inner products of the 10,000 Fashion-MNIST test images against the 60,000 training images:
one lowrank plan (rank 16) searched with 20/50/100 candidates per query against exact_topk; recall@10 and
speedup (one-shot: plan creation included), plotted to topk_fashion_mnist.png. Argument: the data directory."""
import gzip, sys, time
import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt; import numpy as np; import sketchmm
data = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/datasets/fashion-mnist"
load = lambda name: np.frombuffer(gzip.open(f"{data}/{name}-images-idx3-ubyte.gz").read(), np.uint8, offset=16)
D, Q = (load(name).reshape(-1, 784).astype(np.float32) / 255 for name in ("train", "t10k"))
t = time.perf_counter(); exact = sketchmm.exact_topk(Q, D.T, k=10).indices; t_exact = time.perf_counter() - t
t = time.perf_counter(); plan = sketchmm.Plan(D.T, method="lowrank", sketch_dim=16); t_plan = time.perf_counter() - t
points = []
for c in (20, 50, 100):  # the candidates are a parameter of each search, not of the plan
    t1 = time.perf_counter(); idx = plan.topk(Q, k=10, candidates=c).indices; t_query = time.perf_counter() - t1
    recall = (idx[:, :, None] == exact[:, None, :]).any(2).mean(); points.append((t_exact / (t_plan + t_query), recall))
    print(f"candidates {c:3d}: recall@10 {recall:.3f}, speedup {t_exact / (t_plan + t_query):.1f}x with the plan, "
          f"{t_exact / t_query:.1f}x queries only (exact_topk {t_exact:.2f} s)")
plan.close()
plt.plot(*zip(*points), "o-"); plt.xlabel("speedup over exact_topk"); plt.ylabel("recall@10 (index overlap)")
plt.title("Fashion-MNIST top-10, lowrank s=16, 20/50/100 candidates"); plt.savefig("topk_fashion_mnist.png")
