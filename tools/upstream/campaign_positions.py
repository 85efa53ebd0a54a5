"""Handing the campaign's positions to upstream code that enumerates its own.

Table builders and rotary caches count their positions with torch.arange(n) from 0, and the
campaign's positions reach 2^31 - 1: no table that long fits. Inside ArangeGives, the one
torch.arange(count) call whose end is the count object it hands out returns the campaign's
positions instead (in the dtype and on the device asked for); every other torch call runs as
written, so everything upstream does with the positions is upstream's own arithmetic. The count
is an int of its own type and is matched by identity, so an arange of the same length elsewhere
(over the channels, say) is never answered; it is matched as the first argument too, where the
builder counts down from it (XLNet's arange(klen, -qlen, -1)). A builder that computes its length from other numbers
(vLLM's YaRN cache has original_max_position * factor rows, its linear one count * factor) is
answered at the one torch.arange whose only argument equals the `end` the caller names.
"""
import torch
from torch.overrides import TorchFunctionMode


class PositionCount(int):
    """The length handed to the builder: the number of campaign positions, as an object that the
    builder's enumeration of positions (and only that one) can be told apart by."""


class ArangeGives(TorchFunctionMode):
    """with ArangeGives(positions) as gives: builder(gives.count) — and then gives.answered says how
    many times the builder enumerated its positions (a caller expecting one checks it)."""

    def __init__(self, positions, end=None):
        super().__init__()
        self.positions = torch.as_tensor(positions).to(torch.long).reshape(-1)
        self.count = PositionCount(len(self.positions))
        self.end = end
        self.answered = 0

    def enumerates_positions(self, args):
        if not args:
            return False
        if self.end is None:
            return args[0] is self.count
        return len(args) == 1 and not isinstance(args[0], torch.Tensor) and args[0] == self.end

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.arange and self.enumerates_positions(args):
            self.answered += 1
            return self.positions.to(dtype=kwargs.get("dtype") or torch.int64, device=kwargs.get("device"))
        return func(*args, **kwargs)


def distinct_positions(positions, batch, seq, streams=1):
    """The call's distinct positions (1-D, ascending) and each token's row among them, shaped
    [streams, batch, seq] (mrope's t, h, w: streams=3) or [batch, seq]: positions may come for
    one batch row, and are broadcast to all."""
    positions = torch.as_tensor(positions).to(torch.int64).reshape(streams, -1, seq).expand(streams, batch, seq)
    distinct, rows = torch.unique(positions, return_inverse=True)
    return distinct, rows if streams > 1 else rows[0]


def enumerated_once(gives, what):
    """Raises unless the builder enumerated its positions exactly once inside `gives`."""
    if gives.answered != 1:
        raise RuntimeError(f"{what} called torch.arange(n) {gives.answered} times, where the adapter expects once")


class ArangesGiveInTurn(TorchFunctionMode):
    """with ArangesGiveInTurn(first, second, ...) as gives: builder(...) — for a builder that
    enumerates several position ranges from plain lengths (wav2vec2-BERT's relative_key: the
    queries' arange(query_length), then the keys' arange(key_length)). The builder's successive
    torch.arange(n) calls, each n the length of the next list in turn, return those lists;
    gives.answered counts them, and every other torch call runs as written."""

    def __init__(self, *ranges):
        super().__init__()
        self.ranges = [torch.as_tensor(r).to(torch.long).reshape(-1) for r in ranges]
        self.answered = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if (func is torch.arange and self.answered < len(self.ranges) and len(args) == 1
                and not isinstance(args[0], torch.Tensor) and args[0] == len(self.ranges[self.answered])):
            positions = self.ranges[self.answered]
            self.answered += 1
            return positions.to(dtype=kwargs.get("dtype") or torch.int64, device=kwargs.get("device"))
        return func(*args, **kwargs)
