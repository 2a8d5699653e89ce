"""Network cost of one lab step per architecture: sampling and forward + backward at the lab's batch.

One torch thread, random tokens (the cost does not depend on them), median of a few repeats; used to choose the
CPU-size ZINC prior (priors/zinc-gru-2x256.md).

    OMP_NUM_THREADS=1 python benchmarks/network_cost.py --vocab 50 --batch 64 --tokens 55
    OMP_NUM_THREADS=1 python benchmarks/network_cost.py --sizes 2x128 2x256   # layers x hidden, side by side
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from mara_chem.models.networks import build_network

SIZES = ["2x256", "3x256", "3x512"]


def layers_by_hidden(text: str) -> tuple[int, int]:
    """``"2x128"`` -> (2, 128); anything else is a one-line argparse error."""
    layers, sep, hidden = text.partition("x")
    if not (sep and layers.isdigit() and hidden.isdigit() and int(layers) > 0 and int(hidden) > 0):
        raise argparse.ArgumentTypeError(f"expected LAYERSxHIDDEN such as 2x128, got {text!r}")
    return int(layers), int(hidden)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--tokens", type=int, default=55)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--sizes", nargs="+", type=layers_by_hidden, default=[layers_by_hidden(s) for s in SIZES],
                   help="layers x hidden, e.g. 2x128 (embedding 128)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x = torch.randint(0, args.vocab, (args.batch, args.tokens))
    print("layers x hidden | sampling ms | forward+backward ms | parameters")
    for layers, hidden in args.sizes:
        net = build_network("rnn", vocab_size=args.vocab, cell="gru", num_layers=layers, hidden_size=hidden,
                            embedding_dim=128)
        opt = torch.optim.Adam(net.parameters())
        sample, update = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            with torch.no_grad():
                state, token = None, x[:, 0]
                for _ in range(args.tokens):
                    logits, state = net.step(token, state)
                    token = logits.argmax(-1)
            sample.append(time.perf_counter() - start)
            start = time.perf_counter()
            loss = net(x).logsumexp(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            update.append(time.perf_counter() - start)
        n = sum(q.numel() for q in net.parameters())
        print(f"{layers} x {hidden} | {1000 * statistics.median(sample):.0f} | {1000 * statistics.median(update):.0f} "
              f"| {n / 1e6:.2f} M")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
