"""Reduced from pytorchbearer/torchbearer (torchbearer/trial.py + state keys, v0.2.x, Oct 2018)."""
import torch

MODEL = 'model'
CRITERION = 'criterion'
OPTIMIZER = 'optimizer'
DEVICE = 'device'
DATA_TYPE = 'dtype'
X = 'x'
Y_TRUE = 'y_true'
Y_PRED = 'y_pred'
LOSS = 'loss'
BATCH = 't'
CALLBACK_LIST = 'callback_list'
BACKWARD_ARGS = 'backward_args'


class CallbackList(object):
    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def _for_list(self, name, state):
        for callback in self.callbacks:
            getattr(callback, name)(state)

    def on_forward(self, state):
        self._for_list('on_forward', state)

    def on_criterion(self, state):
        self._for_list('on_criterion', state)

    def on_backward(self, state):
        self._for_list('on_backward', state)


class Trial(object):
    def __init__(self, model, optimizer=None, criterion=None, callbacks=[]):
        if criterion is None:
            def criterion(_, __):
                return torch.zeros(1, device=self.state[DEVICE], dtype=self.state[DATA_TYPE], requires_grad=True)

        self.state = {
            MODEL: model,
            CRITERION: criterion,
            OPTIMIZER: optimizer,
            CALLBACK_LIST: CallbackList(callbacks),
            DEVICE: 'cpu',
            DATA_TYPE: torch.float32,
            BACKWARD_ARGS: {},
        }

    def run_batches(self, batches):
        state = self.state
        state[MODEL].train()
        history = []
        for state[BATCH], (x, y) in enumerate(batches):
            state[X], state[Y_TRUE] = x, y

            def closure():
                # Zero grads
                state[OPTIMIZER].zero_grad()

                # Forward Pass
                state[Y_PRED] = state[MODEL](state[X])

                state[CALLBACK_LIST].on_forward(state)

                # Loss Calculation
                state[LOSS] = state[CRITERION](state[Y_PRED], state[Y_TRUE])

                state[CALLBACK_LIST].on_criterion(state)

                # Backwards pass
                state[LOSS].backward(**state[BACKWARD_ARGS])
                state[CALLBACK_LIST].on_backward(state)

            # Update parameters
            state[OPTIMIZER].step(closure)
            history.append(state[LOSS].detach().clone())
        return history
