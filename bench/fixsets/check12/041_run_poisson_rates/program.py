import torch


def run(log_rates, counts):
    """One gradient evaluation of a Poisson rate model; returns the NLL and the rates to report."""
    rates = log_rates.exp()
    nll = (rates - counts * log_rates).sum()
    rates[0] = 0.0  # bin 0 is the reference bin: report it as zero
    nll.backward()
    return nll.detach(), rates.detach()


def main():
    torch.manual_seed(0)
    counts = torch.poisson(torch.full((6,), 3.0))
    log_rates = torch.zeros(6, requires_grad=True)
    history = []
    for _ in range(3):
        nll, rates = run(log_rates, counts)
        with torch.no_grad():
            log_rates -= 0.1 * log_rates.grad
        log_rates.grad = None
        history.append(nll)
    return {"history": history, "rates": rates, "log_rates": log_rates.detach().clone()}


if __name__ == "__main__":
    main()
