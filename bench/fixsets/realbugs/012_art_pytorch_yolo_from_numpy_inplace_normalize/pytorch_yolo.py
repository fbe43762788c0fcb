# Reduced from Trusted-AI/adversarial-robustness-toolbox
# art/estimators/object_detection/pytorch_yolo.py (Aug 2023, before #2263):
# PyTorchYolo without the PyTorchEstimator/ObjectDetectorMixin bases, no
# preprocessing defences (all_framework_preprocessing path), CPU only, and
# predict() returning the raw detections instead of running NMS.
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import torch

from utils import cast_inputs_to_pt


def translate_labels_x1y1x2y2_to_xcycwh(
    labels_x1y1x2y2: List[Dict[str, "torch.Tensor"]], height: int, width: int
) -> "torch.Tensor":
    """
    Translate object detection labels from x1y1x2y2 (torchvision) to xcycwh (YOLO).
    """
    labels_xcycwh_list = []
    device = labels_x1y1x2y2[0]["boxes"].device

    for i, label_dict in enumerate(labels_x1y1x2y2):
        # create 2D tensor to encode labels and bounding boxes
        labels = torch.zeros(len(label_dict["boxes"]), 6, device=device)
        labels[:, 0] = i
        labels[:, 1] = label_dict["labels"]
        labels[:, 2:6] = label_dict["boxes"]

        # normalize bounding boxes to [0, 1]
        labels[:, 2:6:2] /= width
        labels[:, 3:6:2] /= height

        # convert from x1y1x2y2 to xcycwh
        labels[:, 4] -= labels[:, 2]
        labels[:, 5] -= labels[:, 3]
        labels[:, 2] += labels[:, 4] / 2
        labels[:, 3] += labels[:, 5] / 2
        labels_xcycwh_list.append(labels)

    labels_xcycwh = torch.vstack(labels_xcycwh_list)

    return labels_xcycwh


class PyTorchYolo:
    """
    This module implements the model- and task specific estimator for YOLO v3, v5, v7 object detector models in PyTorch.
    """

    def __init__(
        self,
        model: "torch.nn.Module",
        input_shape: Tuple[int, ...] = (3, 416, 416),
        channels_first: bool = True,
        clip_values=None,
        attack_losses: Tuple[str, ...] = (
            "loss_total",
            "loss_cls",
            "loss_box",
            "loss_obj",
        ),
        device_type: str = "cpu",
    ):
        self._model = model
        self._input_shape = input_shape
        self.channels_first = channels_first
        self.clip_values = clip_values
        self.attack_losses = attack_losses
        self.all_framework_preprocessing = True
        self._device = torch.device("cpu")

    @property
    def input_shape(self) -> Tuple[int, ...]:
        return self._input_shape

    @property
    def device(self) -> "torch.device":
        return self._device

    def _apply_preprocessing(self, x, y, fit=False, no_grad=True):
        # no preprocessing defences configured
        return x, y

    def _preprocess_and_convert_inputs(
        self,
        x: Union[np.ndarray, "torch.Tensor"],
        y: Optional[List[Dict[str, Union[np.ndarray, "torch.Tensor"]]]] = None,
        fit: bool = False,
        no_grad: bool = True,
    ) -> Tuple["torch.Tensor", List[Dict[str, "torch.Tensor"]]]:
        """
        Apply preprocessing on inputs `(x, y)` and convert to tensors, if needed.
        """
        if self.clip_values is not None:
            norm_factor = self.clip_values[1]
        else:
            norm_factor = 1.0

        if self.all_framework_preprocessing:
            # Convert samples into tensor
            x_tensor, y_tensor = cast_inputs_to_pt(x, y)

            if not self.channels_first:
                x_tensor = torch.permute(x_tensor, (0, 3, 1, 2))
            x_tensor /= norm_factor

            # Set gradients
            if not no_grad:
                if x_tensor.is_leaf:
                    x_tensor.requires_grad = True
                else:
                    x_tensor.retain_grad()

            # Apply framework-specific preprocessing
            x_preprocessed, y_preprocessed = self._apply_preprocessing(x=x_tensor, y=y_tensor, fit=fit, no_grad=no_grad)

        elif isinstance(x, np.ndarray):
            # Apply preprocessing
            x_preprocessed, y_preprocessed = self._apply_preprocessing(x=x, y=y, fit=fit, no_grad=no_grad)

            # Convert inputs into tensor
            x_preprocessed, y_preprocessed = cast_inputs_to_pt(x_preprocessed, y_preprocessed)

            if not self.channels_first:
                x_preprocessed = torch.permute(x_preprocessed, (0, 3, 1, 2))
            x_preprocessed /= norm_factor

            # Set gradients
            if not no_grad:
                x_preprocessed.requires_grad = True

        else:
            raise NotImplementedError("Combination of inputs and preprocessing not supported.")

        return x_preprocessed, y_preprocessed

    def _get_losses(
        self, x: Union[np.ndarray, "torch.Tensor"], y: List[Dict[str, Union[np.ndarray, "torch.Tensor"]]]
    ) -> Tuple[Dict[str, "torch.Tensor"], "torch.Tensor"]:
        """
        Get the loss tensor output of the model including all preprocessing.
        """
        self._model.train()

        # Apply preprocessing and convert to tensors
        x_preprocessed, y_preprocessed = self._preprocess_and_convert_inputs(x=x, y=y, fit=False, no_grad=False)

        # Extract height and width
        if self.channels_first:
            height = self.input_shape[1]
            width = self.input_shape[2]
        else:
            height = self.input_shape[0]
            width = self.input_shape[1]

        # Convert labels to YOLO format
        y_preprocessed_yolo = translate_labels_x1y1x2y2_to_xcycwh(
            labels_x1y1x2y2=y_preprocessed, height=height, width=width
        )

        # Move inputs to device
        x_preprocessed = x_preprocessed.to(self.device)
        y_preprocessed_yolo = y_preprocessed_yolo.to(self.device)

        # Set gradients again after inputs are moved to another device
        if x_preprocessed.is_leaf:
            x_preprocessed.requires_grad = True
        else:
            x_preprocessed.retain_grad()

        # Calculate loss components
        loss_components = self._model(x_preprocessed, y_preprocessed_yolo)

        return loss_components, x_preprocessed

    def loss_gradient(  # pylint: disable=W0613
        self, x: Union[np.ndarray, "torch.Tensor"], y: List[Dict[str, Union[np.ndarray, "torch.Tensor"]]], **kwargs
    ) -> Union[np.ndarray, "torch.Tensor"]:
        """
        Compute the gradient of the loss function w.r.t. `x`.
        """
        loss_components, x_grad = self._get_losses(x=x, y=y)

        # Compute the gradient and return
        loss = None
        for loss_name in self.attack_losses:
            if loss is None:
                loss = loss_components[loss_name]
            else:
                loss = loss + loss_components[loss_name]

        # Clean gradients
        self._model.zero_grad()

        # Compute gradients
        loss.backward(retain_graph=True)  # type: ignore

        if x_grad.grad is not None:
            if isinstance(x, np.ndarray):
                grads = x_grad.grad.cpu().numpy()
            else:
                grads = x_grad.grad.clone()
        else:
            raise ValueError("Gradient term in PyTorch model is `None`.")

        if self.clip_values is not None:
            grads = grads / self.clip_values[1]

        if not self.channels_first:
            if isinstance(x, np.ndarray):
                grads = np.transpose(grads, (0, 2, 3, 1))
            else:
                grads = torch.permute(grads, (0, 2, 3, 1))

        assert grads.shape == x.shape

        return grads

    def predict(self, x: np.ndarray, batch_size: int = 128, **kwargs) -> np.ndarray:
        """
        Perform prediction for a batch of inputs (raw detections, no NMS).
        """
        # Set model to evaluation mode
        self._model.eval()

        # Apply preprocessing and convert to tensors
        x_preprocessed, _ = self._preprocess_and_convert_inputs(x=x, y=None, fit=False, no_grad=True)

        results = []
        with torch.no_grad():
            for i in range(0, x_preprocessed.shape[0], batch_size):
                results.append(self._model(x_preprocessed[i:i + batch_size]).cpu().numpy())
        return np.concatenate(results)
