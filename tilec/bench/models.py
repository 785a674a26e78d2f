"""The PyTorch model suite: `python -m tilec.bench.models [--models a,b] [--steps 10] [--out DIR]`.

Each model is built from a configuration with random weights (nothing is downloaded): small
transformers configurations of real architectures (GPT-2, BERT, RoBERTa, DistilBERT, ALBERT,
ELECTRA, Llama, Mistral, Qwen2, Gemma, Phi, OPT, T5, BART, ViT, DeiT, Swin, ConvNeXt, ResNet,
RegNet, MobileNetV2, EfficientNet, Whisper's encoder) and two built-in ones (an MLP, a small
CNN). Dropout is set to 0 (random ops run in torch, so dropout would make the runs differ).

Per model, on one device (`--device cpu|cuda`, in bf16 autocast with `--bf16`), the training step (forward, loss, backward;
the AdamW step stays eager in every run, the same work in each):

- coverage: graph nodes of the forward and backward graphs that ran in tilec regions, over
  those that needed a kernel (views and allocations apart), and the fallbacks by name;
- parity: the losses of `--steps` steps under `torch.compile(backend=tilec)` against eager
  torch from the same initial weights and batch (largest difference, relative to the first
  loss), beside the noise floor: eager against eager with the initial weights one ulp apart
  (of bfloat16 with `--bf16`)
  (a model that amplifies rounding, as MobileNetV2's batch norm over 2 values per channel,
  has a high floor: a tilec difference at that floor is rounding, not a wrong kernel);
- speed: the median of `--rounds` more step times of eager, tilec and inductor (`torch.compile`
  default backend), interleaved so a busy machine slows each alike; the compile time is a
  compiled run's first step time minus that median.

Writes `models.json`, `models.md` (the table) and `models.png` (a chart, with matplotlib) to
`--out`. Needs `transformers` for the transformers models (they are skipped, and said so, without it).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import platform
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

import tilec.torch as tt

VOCAB, SEQ, BATCH, IMAGE = 101, 16, 2, 32


@dataclass
class Case:
    name: str
    build: object  # () -> model
    batch: object  # (generator) -> dict of inputs
    loss: object  # (model, batch) -> scalar loss


def _ids(g):
    return torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)


def _lm(g):
    ids = _ids(g)
    return {"input_ids": ids, "labels": ids}


def _seq2seq(g):
    return {"input_ids": _ids(g), "labels": _ids(g)}


def _image(g):
    return {
        "pixel_values": torch.randn(BATCH, 3, IMAGE, IMAGE, generator=g),
        "labels": torch.randint(0, 5, (BATCH,), generator=g),
    }


def _hf_loss(model, batch):
    return model(**batch).loss


def _transformers_cases() -> list[Case]:
    import transformers as T

    text = dict(vocab_size=VOCAB, max_position_embeddings=64)
    bert = dict(num_hidden_layers=2, hidden_size=32, num_attention_heads=2, intermediate_size=64,
                hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, **text)  # fmt: skip
    decoder = dict(num_hidden_layers=2, hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                   intermediate_size=64, attention_dropout=0.0, **text)  # fmt: skip
    vit = dict(image_size=IMAGE, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
               intermediate_size=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=5)  # fmt: skip
    cnn = dict(num_channels=3, num_labels=5)
    cases = [
        (
            "gpt2",
            lambda: T.GPT2LMHeadModel(
                T.GPT2Config(
                    n_layer=2,
                    n_embd=32,
                    n_head=2,
                    vocab_size=VOCAB,
                    n_positions=64,
                    resid_pdrop=0,
                    embd_pdrop=0,
                    attn_pdrop=0,
                    bos_token_id=0,
                    eos_token_id=0,
                )
            ),
            _lm,
        ),  # fmt: skip
        ("bert", lambda: T.BertForMaskedLM(T.BertConfig(**bert)), _lm),
        (
            "roberta",
            lambda: T.RobertaForMaskedLM(T.RobertaConfig(**{**bert, "max_position_embeddings": 80}, pad_token_id=1)),
            _lm,
        ),
        (
            "distilbert",
            lambda: T.DistilBertForMaskedLM(
                T.DistilBertConfig(
                    n_layers=2,
                    dim=32,
                    n_heads=2,
                    hidden_dim=64,
                    dropout=0.0,
                    attention_dropout=0.0,
                    vocab_size=VOCAB,
                    max_position_embeddings=64,
                )
            ),
            _lm,
        ),  # fmt: skip
        ("albert", lambda: T.AlbertForMaskedLM(T.AlbertConfig(**bert, embedding_size=16)), _lm),
        ("electra", lambda: T.ElectraForMaskedLM(T.ElectraConfig(**bert, embedding_size=16)), _lm),
        ("llama", lambda: T.LlamaForCausalLM(T.LlamaConfig(**decoder)), _lm),
        ("mistral", lambda: T.MistralForCausalLM(T.MistralConfig(**decoder)), _lm),
        ("qwen2", lambda: T.Qwen2ForCausalLM(T.Qwen2Config(**decoder)), _lm),
        ("gemma", lambda: T.GemmaForCausalLM(T.GemmaConfig(**decoder, head_dim=8)), _lm),
        ("phi", lambda: T.PhiForCausalLM(T.PhiConfig(**decoder, resid_pdrop=0.0, embd_pdrop=0.0)), _lm),
        (
            "opt",
            lambda: T.OPTForCausalLM(
                T.OPTConfig(
                    num_hidden_layers=2,
                    hidden_size=32,
                    num_attention_heads=2,
                    ffn_dim=64,
                    word_embed_proj_dim=32,
                    dropout=0.0,
                    attention_dropout=0.0,
                    **text,
                )
            ),
            _lm,
        ),  # fmt: skip
        (
            "t5",
            lambda: T.T5ForConditionalGeneration(
                T.T5Config(
                    vocab_size=VOCAB,
                    d_model=32,
                    d_kv=8,
                    d_ff=64,
                    num_layers=2,
                    num_heads=4,
                    dropout_rate=0.0,
                    decoder_start_token_id=0,
                )
            ),
            _seq2seq,
        ),  # fmt: skip
        (
            "bart",
            lambda: T.BartForConditionalGeneration(
                T.BartConfig(
                    vocab_size=VOCAB,
                    d_model=32,
                    encoder_layers=2,
                    decoder_layers=2,
                    encoder_attention_heads=2,
                    decoder_attention_heads=2,
                    encoder_ffn_dim=64,
                    decoder_ffn_dim=64,
                    dropout=0.0,
                    attention_dropout=0.0,
                    max_position_embeddings=64,
                )
            ),
            _seq2seq,
        ),  # fmt: skip
        ("vit", lambda: T.ViTForImageClassification(T.ViTConfig(**vit)), _image),
        ("deit", lambda: T.DeiTForImageClassification(T.DeiTConfig(**vit)), _image),
        (
            "swin",
            lambda: T.SwinForImageClassification(
                T.SwinConfig(
                    image_size=IMAGE,
                    patch_size=4,
                    embed_dim=16,
                    depths=[1, 1],
                    num_heads=[2, 4],
                    window_size=4,
                    hidden_dropout_prob=0.0,
                    attention_probs_dropout_prob=0.0,
                    drop_path_rate=0.0,
                    num_labels=5,
                )
            ),
            _image,
        ),  # fmt: skip
        (
            "convnext",
            lambda: T.ConvNextForImageClassification(
                T.ConvNextConfig(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2, drop_path_rate=0.0, **cnn)
            ),
            _image,
        ),  # fmt: skip
        (
            "resnet",
            lambda: T.ResNetForImageClassification(
                T.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="bottleneck", **cnn)
            ),
            _image,
        ),  # fmt: skip
        (
            "regnet",
            lambda: T.RegNetForImageClassification(
                T.RegNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8, **cnn)
            ),
            _image,
        ),  # fmt: skip
        (
            "mobilenet_v2",
            lambda: T.MobileNetV2ForImageClassification(
                T.MobileNetV2Config(depth_multiplier=0.25, image_size=IMAGE, classifier_dropout_prob=0.0, **cnn)
            ),
            _image,
        ),  # fmt: skip
        (
            "efficientnet",
            lambda: T.EfficientNetForImageClassification(
                T.EfficientNetConfig(
                    image_size=IMAGE,
                    width_coefficient=0.25,
                    depth_coefficient=0.25,
                    hidden_dim=320,
                    dropout_rate=0.0,
                    drop_connect_rate=0.0,
                    **cnn,
                )
            ),
            _image,
        ),  # fmt: skip
        (
            "whisper_encoder",
            lambda: T.WhisperForAudioClassification(
                T.WhisperConfig(
                    num_mel_bins=8,
                    d_model=32,
                    encoder_layers=2,
                    encoder_attention_heads=2,
                    encoder_ffn_dim=64,
                    max_source_positions=16,
                    dropout=0.0,
                    attention_dropout=0.0,
                    num_labels=5,
                )
            ),
            lambda g: {
                "input_features": torch.randn(BATCH, 8, 32, generator=g),
                "labels": torch.randint(0, 5, (BATCH,), generator=g),
            },
        ),  # fmt: skip
    ]
    return [Case(n, b, d, _hf_loss) for n, b, d in cases]


def _builtin_cases() -> list[Case]:
    nn = torch.nn

    def mlp():
        return nn.Sequential(nn.Linear(24, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 5))

    def cnn():
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(8, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))  # fmt: skip

    def loss(model, b):
        return F.cross_entropy(model(b["x"]), b["y"])

    return [
        Case(
            "mlp",
            mlp,
            lambda g: {"x": torch.randn(8, 24, generator=g), "y": torch.randint(0, 5, (8,), generator=g)},
            loss,
        ),
        Case(
            "small_cnn",
            cnn,
            lambda g: {"x": torch.randn(4, 3, 17, 17, generator=g), "y": torch.randint(0, 5, (4,), generator=g)},
            loss,
        ),
    ]


# The published sizes, run only when named: (text batch, sequence length) and (image batch, side)
BASE_TEXT, BASE_IMAGE = (8, 128), (32, 224)


def base_cases(batch: int | None = None) -> list[Case]:
    """ResNet-50, BERT-base and GPT-2 (124M) at their published sizes with random weights, on
    GPU-sized batches (`batch` overrides the batch size): issue 13's "done means" models. Run
    only when named (`--models resnet50,bert_base,gpt2_124m` or `--base`); needs transformers."""
    import transformers as T

    (tb, seq), (ib, side) = BASE_TEXT, BASE_IMAGE
    tb, ib = batch or tb, batch or ib

    def text(vocab):
        def make(g):
            ids = torch.randint(0, vocab, (tb, seq), generator=g)
            return {"input_ids": ids, "labels": ids}

        return make

    def image(g):
        return {
            "pixel_values": torch.randn(ib, 3, side, side, generator=g),
            "labels": torch.randint(0, 1000, (ib,), generator=g),
        }

    drop = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    gpt2_drop = dict(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return [
        Case("resnet50", lambda: T.ResNetForImageClassification(T.ResNetConfig(num_labels=1000)), image, _hf_loss),
        Case("bert_base", lambda: T.BertForMaskedLM(T.BertConfig(**drop)), text(30522), _hf_loss),
        Case("gpt2_124m", lambda: T.GPT2LMHeadModel(T.GPT2Config(**gpt2_drop)), text(50257), _hf_loss),
    ]


def cases() -> tuple[list[Case], str | None]:
    """The suite; the second value says why the transformers models are missing, if they are."""
    try:
        return _builtin_cases() + _transformers_cases(), None
    except ImportError as e:
        return _builtin_cases(), f"transformers is not installed ({e}): its models are skipped"


def _to(batch, device):
    return {k: v.to(device) for k, v in batch.items()}


class _Run:
    """One way of running a model's training step (its own copy of the model and AdamW)."""

    def __init__(self, model, forward, batch, loss_fn, device: str, bf16: bool = False):
        self.model, self.forward, self.batch, self.loss_fn, self.device = model, forward, batch, loss_fn, device
        self.bf16 = bf16
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def step(self) -> tuple[float, float]:
        """(loss, seconds) of one training step."""
        if self.device == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        with torch.autocast(self.device, dtype=torch.bfloat16, enabled=self.bf16):
            loss = self.loss_fn(self.forward, self.batch)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        if self.device == "cuda":
            torch.cuda.synchronize()
        return loss.item(), time.perf_counter() - t


def _nudge(model, dtype=torch.float32):
    """The model with every float parameter moved one ulp of `dtype` up (in place; returns it):
    of bfloat16 under bf16 autocast, where a float32 ulp would vanish in the casts."""
    with torch.no_grad():
        for p in model.parameters():
            if p.is_floating_point():
                q = p.to(dtype)
                p.copy_(torch.nextafter(q, torch.full_like(q, math.inf)).to(p.dtype))
    return model


def run_case(case: Case, steps: int, device: str, inductor: bool, rounds: int = 5, bf16: bool = False) -> dict:
    """Parity: `steps` steps eager and on tilec from the same weights. Compile time: each
    compiled run's first step minus its later median. Speed: then `rounds` more steps of every
    run, interleaved (eager, tilec, inductor, eager, ...), so a busy machine slows all alike."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    base = case.build().to(device).train()
    batch = _to(case.batch(g), device)
    row: dict = {"model": case.name, "params": sum(p.numel() for p in base.parameters())}
    eager_model, tilec_model = copy.deepcopy(base), copy.deepcopy(base)
    runs = {"eager": _Run(eager_model, eager_model, batch, case.loss, device, bf16)}
    backend = tt.Backend(strict=False)
    torch._dynamo.reset()
    runs["tilec"] = _Run(tilec_model, torch.compile(tilec_model, backend=backend), batch, case.loss, device, bf16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [runs["eager"].step() for _ in range(steps)]
        got = [runs["tilec"].step() for _ in range(steps)]
        # the noise floor: eager again with the initial weights moved by one ulp (how far float
        # rounding alone moves this model's losses: some models amplify it, e.g. batch norm
        # over 2 values per channel)
        nudged = _nudge(copy.deepcopy(base), torch.bfloat16 if bf16 else torch.float32)
        noise_run = _Run(nudged, nudged, batch, case.loss, device, bf16)
        noise = [noise_run.step() for _ in range(steps)]
        del noise_run, nudged
    first = {"tilec": got[0][1]}
    if inductor:
        ind = copy.deepcopy(base)
        runs["inductor"] = _Run(ind, torch.compile(ind), batch, case.loss, device, bf16)
        first["inductor"] = runs["inductor"].step()[1]
        runs["inductor"].step()
    times: dict = {k: [] for k in runs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(rounds):
            for k, r in runs.items():
                times[k].append(r.step()[1])
    med = {k: statistics.median(v) for k, v in times.items()}
    rep = backend.report
    done, missed = sum(rep.kernels.values()), sum(rep.fallbacks.values())
    scale = max(abs(want[0][0]), 1e-12)
    row.update(
        coverage=rep.coverage,
        nodes=done + missed,
        fallbacks=dict(rep.fallbacks),
        regions=len(rep.regions_seen),
        loss_eager=want[-1][0],
        loss_tilec=got[-1][0],
        loss_rel_diff=max(abs(a[0] - b[0]) for a, b in zip(got, want)) / scale,
        noise_rel_diff=max(abs(a[0] - b[0]) for a, b in zip(noise, want)) / scale,
        eager_ms=1e3 * med["eager"],
        tilec_ms=1e3 * med["tilec"],
        tilec_compile_s=first["tilec"] - med["tilec"],
    )
    if inductor:
        row.update(inductor_ms=1e3 * med["inductor"], inductor_compile_s=first["inductor"] - med["inductor"])
    torch._dynamo.reset()
    return row


def table(rows: list[dict]) -> str:
    head = (
        "| model | params | coverage | fallbacks | regions | loss eager | loss tilec | rel. diff | eager noise | "
        "eager ms | tilec ms | inductor ms | speed-up vs eager | speed-up vs inductor | tilec compile s |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | | | error: {r['error']} |" + " |" * 11)
            continue
        fb = ", ".join(f"{k.removeprefix('aten::')} x{v}" for k, v in r["fallbacks"].items()) or "-"
        ind = r.get("inductor_ms")
        vs_ind = "" if ind is None else f"{ind / r['tilec_ms']:.2f}x"
        lines.append(
            f"| {r['model']} | {r['params']:,} | {100 * r['coverage']:.1f}% | {fb} | {r['regions']} | "
            f"{r['loss_eager']:.5f} | {r['loss_tilec']:.5f} | {r['loss_rel_diff']:.1e} | "
            f"{r['noise_rel_diff']:.1e} | {r['eager_ms']:.1f} | "
            f"{r['tilec_ms']:.1f} | {'' if ind is None else f'{ind:.1f}'} | {r['eager_ms'] / r['tilec_ms']:.2f}x | "
            f"{vs_ind} | "
            f"{r['tilec_compile_s']:.1f} |"
        )
    return "\n".join(lines)


def chart(rows: list[dict], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ok = [r for r in rows if "error" not in r]
    names = [r["model"] for r in ok]
    fig, (a, b) = plt.subplots(2, 1, figsize=(max(8, 0.45 * len(names)), 7), sharex=True)
    a.bar(names, [100 * r["coverage"] for r in ok], color="tab:green")
    a.set_ylabel("op instances on tilec (%)")
    a.set_ylim(0, 105)
    x = range(len(names))
    b.bar([i - 0.2 for i in x], [r["eager_ms"] / r["tilec_ms"] for r in ok], width=0.4, label="eager / tilec")
    if all("inductor_ms" in r for r in ok):
        b.bar([i + 0.2 for i in x], [r["inductor_ms"] / r["tilec_ms"] for r in ok], width=0.4, label="inductor / tilec")
    b.axhline(1.0, color="black", lw=0.8)
    b.set_ylabel("speed-up of tilec (x)")
    b.legend()
    plt.xticks(rotation=60, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tilec.bench.models", description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="", help="comma-separated names (default: all)")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved timed steps per way")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--no-inductor", action="store_true", help="skip the torch.compile (inductor) runs")
    ap.add_argument("--bf16", action="store_true", help="every run in bf16 autocast (torch.autocast)")
    ap.add_argument(
        "--base", action="store_true", help="add ResNet-50, BERT-base and GPT-2 (124M) at their published sizes"
    )
    ap.add_argument("--batch", type=int, default=None, help="batch size of the published-size models")
    ap.add_argument("--out", default="benchmarks/out")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    suite, why = cases()
    if why:
        print(f"note: {why}", file=sys.stderr)
    base = [] if why else base_cases(args.batch)
    if args.list:
        print("\n".join(c.name for c in suite))
        print("\n".join(f"{c.name}  (published size: only when named, or with --base)" for c in base))
        return 0
    want = [m for m in args.models.split(",") if m]
    unknown = [m for m in want if m not in {c.name for c in suite + base}]
    if unknown:
        print(f"error: unknown model(s) {', '.join(unknown)} (--list shows them)", file=sys.stderr)
        return 1
    chosen = [c for c in suite if not want or c.name in want] if (want or not args.base) else []
    chosen += [c for c in base if c.name in want or args.base]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": platform.processor() or platform.machine(),
        "device": args.device if args.device == "cpu" else torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "steps": args.steps,
        "rounds": args.rounds,
        "autocast": "bf16" if args.bf16 else None,
        "base_batch": args.batch,
        "command": "python -m tilec.bench.models " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    rows = []
    for c in chosen:
        t = time.perf_counter()
        try:
            row = run_case(c, args.steps, args.device, not args.no_inductor, args.rounds, args.bf16)
        except Exception as e:  # noqa: BLE001  (one model's failure is a row of the report, not the end of it)
            row = {"model": c.name, "error": f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"}
        rows.append(row)
        status = row.get("error") or (
            f"coverage {100 * row['coverage']:.1f}%, rel. diff {row['loss_rel_diff']:.1e} "
            f"(eager noise {row['noise_rel_diff']:.1e})"
        )
        print(f"{c.name:16} {time.perf_counter() - t:7.1f} s  {status}", flush=True)
        # after every model: a run cut short (a time limit) keeps the models it finished
        (out / "models.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    md = table(rows)
    (out / "models.md").write_text(md + "\n")
    drew = chart(rows, out / "models.png")
    ok = [r for r in rows if "error" not in r]
    if ok:
        geo = math.exp(statistics.fmean(math.log(r["eager_ms"] / r["tilec_ms"]) for r in ok))
        print(f"\n{len(ok)}/{len(rows)} models ran; mean coverage {100 * statistics.fmean(r['coverage'] for r in ok):.1f}%; "
              f"geomean eager/tilec {geo:.2f}x")  # fmt: skip
    print(md)
    print(f"\nwrote {out / 'models.json'}, {out / 'models.md'}" + (f", {out / 'models.png'}" if drew else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
