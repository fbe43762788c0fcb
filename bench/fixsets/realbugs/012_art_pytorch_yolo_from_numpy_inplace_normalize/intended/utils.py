# From Trusted-AI/adversarial-robustness-toolbox
# art/estimators/object_detection/utils.py (cast_inputs_to_pt only).
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import torch


def cast_inputs_to_pt(
    x: Union[np.ndarray, "torch.Tensor"],
    y: Optional[List[Dict[str, Union[np.ndarray, "torch.Tensor"]]]] = None,
) -> Tuple["torch.Tensor", Optional[List[Dict[str, "torch.Tensor"]]]]:
    """
    Cast object detection inputs `(x, y)` to PyTorch tensors.
    """
    # Convert images into tensor
    if isinstance(x, np.ndarray):
        x_tensor = torch.from_numpy(x)
    else:
        x_tensor = x

    y_tensor: Optional[List[Dict[str, torch.Tensor]]] = None

    # Convert labels into tensor
    if isinstance(y, list):
        y_tensor = []
        for y_i in y:
            y_t = {}

            if isinstance(y_i["boxes"], np.ndarray):
                y_t["boxes"] = torch.from_numpy(y_i["boxes"]).to(dtype=torch.float32)
            else:
                y_t["boxes"] = y_i["boxes"]

            if isinstance(y_i["labels"], np.ndarray):
                y_t["labels"] = torch.from_numpy(y_i["labels"]).to(dtype=torch.int64)
            else:
                y_t["labels"] = y_i["labels"]

            y_tensor.append(y_t)
    else:
        y_tensor = y

    return x_tensor, y_tensor
