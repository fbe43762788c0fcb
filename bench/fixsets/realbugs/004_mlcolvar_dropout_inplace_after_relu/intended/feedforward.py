# Reduced from luigibonati/mlcolvar mlcolvar/core/nn/feedforward.py and
# mlcolvar/core/nn/utils.py (lightning.LightningModule -> torch.nn.Module).
from typing import Optional, Union

import torch


def get_activation(activation: str):
    """Return activation module given string."""
    activ = None
    if activation == "relu":
        activ = torch.nn.ReLU(True)
    elif activation == "elu":
        activ = torch.nn.ELU(True)
    elif activation == "tanh":
        activ = torch.nn.Tanh()
    elif activation == "softplus":
        activ = torch.nn.Softplus()
    elif activation is None:
        pass
    else:
        raise ValueError(f"Unknown activation: {activation}.")
    return activ


def parse_nn_options(options, n_layers: int, last_layer_activation: bool):
    """Parse args per layer of the NN."""
    if hasattr(options, "__iter__") and not isinstance(options, str):
        if len(options) != n_layers:
            raise ValueError(
                f"Length of options: {options} ({len(options)} should be equal to number of layers ({n_layers}))."
            )
        options_list = options
    else:
        if last_layer_activation:
            options_list = [options for _ in range(n_layers)]
        else:
            options_list = [options for _ in range(n_layers - 1)]
            options_list.append(None)

    return options_list


class FeedForward(torch.nn.Module):
    """Define a feedforward neural network given the list of layers.

    Optionally dropout and batchnorm can be applied (the order is activation -> dropout -> batchnorm).
    """

    def __init__(
            self,
            layers: list,
            activation: Union[str, list] = "relu",
            dropout: Optional[Union[float, list]] = None,
            batchnorm: Union[bool, list] = False,
            last_layer_activation: bool = False,
            **kwargs
    ):
        super().__init__(**kwargs)

        # Parse layers
        if not isinstance(layers[0], int):
            raise TypeError('layers should be a list-type of integers.')

        # Parse options per each hidden layer
        n_layers = len(layers) - 1
        # -- activation
        activation_list = parse_nn_options(activation, n_layers, last_layer_activation)
        # -- dropout
        dropout_list = parse_nn_options(dropout, n_layers, last_layer_activation)
        # -- batchnorm
        batchnorm_list = parse_nn_options(batchnorm, n_layers, last_layer_activation)

        # Create network
        modules = []
        for i in range(len(layers) - 1):
            modules.append(torch.nn.Linear(layers[i], layers[i + 1]))
            activ, drop, norm = activation_list[i], dropout_list[i], batchnorm_list[i]

            if activ is not None:
                modules.append(get_activation(activ))

            if drop is not None:
                modules.append(torch.nn.Dropout(p=drop))

            if norm:
                modules.append(torch.nn.BatchNorm1d(layers[i + 1]))

        # store model and attributes
        self.nn = torch.nn.Sequential(*modules)
        self.in_features = layers[0]
        self.out_features = layers[-1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.nn(x)
