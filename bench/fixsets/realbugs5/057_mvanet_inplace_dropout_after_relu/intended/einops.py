# Minimal plain-PyTorch stand-in for einops.rearrange (einops is not installed here):
# supports patterns made of names and parenthesised groups, as used by MVANet.
import re



def rearrange(x, pattern, **sizes):
    left, right = [s.strip() for s in pattern.split("->")]
    lgroups = [g.strip("()").split() for g in re.findall(r"\([^)]*\)|\S+", left)]
    rgroups = [g.strip("()").split() for g in re.findall(r"\([^)]*\)|\S+", right)]
    known = dict(sizes)
    for group, dim in zip(lgroups, x.shape):
        unknown = [a for a in group if a not in known]
        prod = 1
        for a in group:
            if a in known:
                prod *= known[a]
        if len(unknown) == 1:
            known[unknown[0]] = dim // prod
    elementary = [a for g in lgroups for a in g]
    x = x.reshape([known[a] for a in elementary])
    order = [a for g in rgroups for a in g]
    x = x.permute([elementary.index(a) for a in order])
    out_shape = []
    for g in rgroups:
        n = 1
        for a in g:
            n *= known[a]
        out_shape.append(n)
    return x.reshape(out_shape)
