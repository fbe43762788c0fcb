"""Reduced from torchbearer/callbacks/decorators.py."""
import bearer


class Callback(object):
    def on_forward(self, state):
        pass

    def on_criterion(self, state):
        pass

    def on_backward(self, state):
        pass


class LambdaCallback(Callback):
    def __init__(self, name, func):
        self.name = name
        self.func = func
        setattr(self, name, func)


def bind_to(target):
    def decorator(func):
        if isinstance(func, LambdaCallback):
            callback = func
        else:
            callback = LambdaCallback(target, func)
        setattr(callback, target, func if not isinstance(func, LambdaCallback) else func.func)
        return callback
    return decorator


def on_criterion(func):
    return bind_to('on_criterion')(func)


def add_to_loss(func):
    """ The :func:`add_to_loss` decorator is used to initialise a :class:`.Callback` with the value returned from func
    being added to the loss
    """
    @on_criterion
    def add_to_loss_callback(state):
        state[bearer.LOSS] = state[bearer.LOSS] + func(state)

    return add_to_loss_callback
