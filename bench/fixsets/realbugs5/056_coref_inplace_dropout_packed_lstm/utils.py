# Reduced from shayneobrien/coreference-resolution src/utils.py (packing helpers)
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence


def pack(tensors):
    """ Pack list of tensors, provide reorder indexes """

    # Get sizes
    sizes = [t.shape[0] for t in tensors]

    # Get indexes for sorted sizes (largest to smallest)
    size_sort = sorted(range(len(sizes)), key=lambda k: sizes[k], reverse=True)

    # Resort the tensor accordingly
    sorted_tensors = [tensors[i] for i in size_sort]

    # Resort sizes in descending order
    sizes = sorted(sizes, reverse=True)

    # Pad tensors
    padded = pad_sequence(sorted_tensors, batch_first=True)

    # Pack the padded sequences
    packed = pack_padded_sequence(padded, sizes, batch_first=True)

    # Regroup indexes for restoring tensor to its original order
    reorder = torch.tensor(sorted(range(len(size_sort)), key=lambda k: size_sort[k]))

    return packed, reorder


def unpack_and_unpad(lstm_out, reorder):
    """ Given a padded and packed sequence and its reordering indexes,
    unpack and unpad it. Inverse of pad_and_pack """

    # Restore a packed sequence to its padded version
    unpacked, sizes = pad_packed_sequence(lstm_out, batch_first=True)

    # Restore the sequence to its original order
    unpacked = unpacked[reorder]
    sizes = sizes[reorder]

    # Unpad the padded sequences
    unpadded = [unpacked[idx][:val] for idx, val in enumerate(sizes)]

    return unpadded
