"""vikrant7/mobile-vod-bottleneck-lstm train_mvod_lstm1.py: train() over sequences of frames, one optimizer
step per frame, LSTM state carried across frames."""
import torch

from network import MobileNetV1, SSD, MobileVOD, MultiboxLoss


def train(loader, net, criterion, optimizer, device, debug_steps=100, epoch=-1, sequence_length=10):
	net.train(True)
	running_loss = 0.0
	running_regression_loss = 0.0
	running_classification_loss = 0.0
	history = []
	for i, data in enumerate(loader):
		images, boxes, labels = data
		for image, box, label in zip(images, boxes, labels):
			image = image.to(device)
			box = box.to(device)
			label = label.to(device)

			optimizer.zero_grad()
			confidence, locations = net(image)
			regression_loss, classification_loss = criterion(confidence, locations, label, box)  # TODO CHANGE BOXES
			loss = regression_loss + classification_loss
			loss.backward(retain_graph=True)
			optimizer.step()

			running_loss += loss.item()
			running_regression_loss += regression_loss.item()
			running_classification_loss += classification_loss.item()
			history.append(loss.item())
			net.detach_hidden()
	net.detach_hidden()
	return history


def main():
	torch.manual_seed(0)
	num_classes, batch_size, alpha, seq_len = 3, 2, 0.125, 3
	device = torch.device("cpu")
	pred_enc = MobileNetV1(num_classes=num_classes, alpha=alpha)
	pred_dec = SSD(num_classes=num_classes, batch_size=batch_size, alpha=alpha, is_test=False)
	net = MobileVOD(pred_enc, pred_dec)
	net.to(device)
	criterion = MultiboxLoss(neg_pos_ratio=10)
	optimizer = torch.optim.RMSprop([{'params': [param for name, param in net.pred_encoder.named_parameters()], 'lr': 1e-3},
		{'params': [param for name, param in net.pred_decoder.named_parameters()], 'lr': 1e-3},], lr=1e-3,
		weight_decay=5e-4, momentum=0.9)
	num_priors = 6 * (4 * 4 + 2 * 2 + 1 * 1)
	loader = []
	for _ in range(2):
		images = [torch.randn(batch_size, 3, 32, 32) for _ in range(seq_len)]
		boxes = [torch.randn(batch_size, num_priors, 4) * 0.5 for _ in range(seq_len)]
		labels = [(torch.rand(batch_size, num_priors) < 0.1).long() * torch.randint(1, num_classes, (batch_size, num_priors))
				  for _ in range(seq_len)]
		for lab in labels:
			lab[:, 0] = 1
		loader.append((images, boxes, labels))
	history = train(loader, net, criterion, optimizer, device, sequence_length=seq_len)
	lstm = net.pred_decoder.bottleneck_lstm1
	return {"history": history,
			"lstm_Wy": lstm.cell.Wy.weight.detach().clone(),
			"conv13_pw": net.pred_decoder.conv13[3].weight.detach().clone(),
			"enc_first": net.pred_encoder.model[0][0].weight.detach().clone(),
			"hidden_state": lstm.hidden_state.detach().clone()}


if __name__ == "__main__":
	main()
