"""A callable on torch tensors run with its tensors moved to another device and back.

peconform hands a callable strided views over buffers it owns, with guards around them, and
judges what the callable writes anywhere in those buffers. So each argument's whole storage
moves, and the view is rebuilt on the copy with the same offset and strides: the kernel meets
the same layout on the device as on the CPU, arguments sharing a storage still share it, and
whatever it writes (its output, its input in place, a guard) is copied back into the storage
peconform reads.
"""
import torch


def run_moved(fn, args, kwargs, move):
    """fn(*args, **kwargs) with every tensor's storage moved by `move` (a storage -> storage on
    the device) and copied back after the call; a returned tensor that views a moved storage
    comes back as the same view of the original one, any other returned tensor through .cpu()."""
    moved = {}  # the original storage's address -> (original storage, its copy)

    def to_device(value):
        if isinstance(value, torch.Tensor):
            storage = value.untyped_storage()
            if storage.data_ptr() not in moved:
                moved[storage.data_ptr()] = (storage, move(storage))
            copy = moved[storage.data_ptr()][1]
            return torch.empty(0, dtype=value.dtype, device=copy.device).set_(copy, value.storage_offset(), value.size(), value.stride())
        if isinstance(value, (list, tuple)):
            return type(value)(to_device(item) for item in value)
        if isinstance(value, dict):
            return {key: to_device(item) for key, item in value.items()}
        return value

    def back(value):
        if isinstance(value, torch.Tensor):
            original = originals.get(value.untyped_storage().data_ptr())
            if original is None:
                return value.cpu()
            return torch.empty(0, dtype=value.dtype).set_(original, value.storage_offset(), value.size(), value.stride())
        if isinstance(value, (list, tuple)):
            return type(value)(back(item) for item in value)
        return value

    device_args, device_kwargs = to_device(args), to_device(kwargs)
    result = fn(*device_args, **device_kwargs)
    for original, copy in moved.values():
        original.copy_(copy)
    originals = {copy.data_ptr(): original for original, copy in moved.values()}
    return back(result)
