"""MEMO-style test-time adaptation of a YOLOv7 detector (issue reported on WongKinYiu/yolov7
and zhangmarvin/memo): the marginal entropy of the class scores of augmented copies of one
test image is minimised, backpropagating through the inference branch of IDetect, which
decodes the boxes by writing into the sigmoid output in place."""
import torch

from yolo import Model


def aug(image):
    if torch.rand(()) < 0.5:
        image = torch.flip(image, dims=[2])
    return (image + 0.05 * torch.randn_like(image)).clamp(0, 1)


def marginal_entropy(outputs):
    scores = outputs[..., 5:] * outputs[..., 4:5]       # class prob x objectness
    probs = scores / scores.sum(-1, keepdim=True)
    avg_probs = probs.mean(0)                         # average over the augmented copies
    logits = torch.log(avg_probs + 1e-8)
    return -(avg_probs * logits).sum(-1).mean(), logits


def adapt_single(image, optimizer, batch_size, model, device):
    model.eval()
    inputs = [aug(image) for _ in range(batch_size)]
    inputs_t = torch.stack(inputs).to(device)
    optimizer.zero_grad()
    outputs, train_output = model(inputs_t)   # [batch_size, num_boxes, 5 + nc]
    loss, logits = marginal_entropy(outputs)
    loss.backward()
    optimizer.step()
    return loss.detach()


def main():
    torch.manual_seed(0)
    device = 'cpu'
    model = Model(ch=3, nc=3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.005, momentum=0.9)
    images = [torch.rand(3, 64, 64) for _ in range(2)]
    losses, detections = [], []
    for image in images:
        losses.append(adapt_single(image, optimizer, 4, model, device))
        with torch.no_grad():
            out, _ = model(image[None])
        detections.append(out)
    result = {'losses': losses, 'detections': detections}
    for name, p in model.named_parameters():
        result[name] = p.detach().clone()
    for name, b in model.named_buffers():
        result['buffer.' + name] = b.detach().clone()
    return result


if __name__ == "__main__":
    main()
