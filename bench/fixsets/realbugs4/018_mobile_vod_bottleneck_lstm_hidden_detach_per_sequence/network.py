"""vikrant7/mobile-vod-bottleneck-lstm network/mvod_bottleneck_lstm1.py + network/multibox_loss.py (reduced:
fewer MobileNet blocks and SSD feature maps, width multiplier 1/8, 32x32 frames)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def SeperableConv2d(in_channels, out_channels, kernel_size=1, stride=1, padding=0):
	"""Replace Conv2d with a depthwise Conv2d and Pointwise Conv2d."""
	return nn.Sequential(
		nn.Conv2d(in_channels=int(in_channels), out_channels=int(in_channels), kernel_size=kernel_size,
			   groups=int(in_channels), stride=stride, padding=padding),
		nn.ReLU6(),
		nn.Conv2d(in_channels=int(in_channels), out_channels=int(out_channels), kernel_size=1),
	)


def conv_bn(inp, oup, stride):
	"""3x3 conv with batchnorm and relu"""
	return nn.Sequential(
				nn.Conv2d(int(inp), int(oup), 3, stride, 1, bias=False),
				nn.BatchNorm2d(int(oup)),
				nn.ReLU6(inplace=True)
			)


def conv_dw(inp, oup, stride):
	"""Depthwise Conv2d and Pointwise Conv2d having batchnorm and relu layers in between."""
	return nn.Sequential(
				nn.Conv2d(int(inp), int(inp), 3, stride, 1, groups=int(inp), bias=False),
				nn.BatchNorm2d(int(inp)),
				nn.ReLU6(inplace=True),

				nn.Conv2d(int(inp), int(oup), 1, 1, 0, bias=False),
				nn.BatchNorm2d(int(oup)),
				nn.ReLU6(inplace=True),
			)


class BottleneckLSTMCell(nn.Module):
	def __init__(self, input_channels, hidden_channels):
		super(BottleneckLSTMCell, self).__init__()

		assert hidden_channels % 2 == 0

		self.input_channels = int(input_channels)
		self.hidden_channels = int(hidden_channels)
		self.num_features = 4
		self.W = nn.Conv2d(in_channels=self.input_channels, out_channels=self.input_channels, kernel_size=3, groups=self.input_channels, stride=1, padding=1)
		self.Wy  = nn.Conv2d(int(self.input_channels+self.hidden_channels), self.hidden_channels, kernel_size=1)
		self.Wi  = nn.Conv2d(self.hidden_channels, self.hidden_channels, 3, 1, 1, groups=self.hidden_channels, bias=False)
		self.Wbi = nn.Conv2d(self.hidden_channels, self.hidden_channels, 1, 1, 0, bias=False)
		self.Wbf = nn.Conv2d(self.hidden_channels, self.hidden_channels, 1, 1, 0, bias=False)
		self.Wbc = nn.Conv2d(self.hidden_channels, self.hidden_channels, 1, 1, 0, bias=False)
		self.Wbo = nn.Conv2d(self.hidden_channels, self.hidden_channels, 1, 1, 0, bias=False)
		self.relu = nn.ReLU6()
		self._initialize_weights()

	def _initialize_weights(self):
		for m in self.modules():
			if isinstance(m, nn.Conv2d):
				nn.init.xavier_uniform_(m.weight)
				if m.bias is not None:
					m.bias.data.zero_()
			elif isinstance(m, nn.BatchNorm2d):
				m.weight.data.fill_(1)
				m.bias.data.zero_()

	def forward(self, x, h, c):
		x = self.W(x)
		y = torch.cat((x, h),1) #concatenate input and hidden layers
		i = self.Wy(y) #reduce to hidden layer size
		b = self.Wi(i)	#depth wise 3*3
		ci = torch.sigmoid(self.Wbi(b))
		cf = torch.sigmoid(self.Wbf(b))
		cc = cf * c + ci * self.relu(self.Wbc(b))
		co = torch.sigmoid(self.Wbo(b))
		ch = co * self.relu(cc)
		return ch, cc

	def init_hidden(self, batch_size, hidden, shape):
		return (torch.zeros(batch_size, hidden, shape[0], shape[1]),
				torch.zeros(batch_size, hidden, shape[0], shape[1])
				)


class BottleneckLSTM(nn.Module):
	def __init__(self, input_channels, hidden_channels, height, width, batch_size):
		super(BottleneckLSTM, self).__init__()
		self.input_channels = int(input_channels)
		self.hidden_channels = int(hidden_channels)
		self.cell = BottleneckLSTMCell(self.input_channels, self.hidden_channels)
		(h, c) = self.cell.init_hidden(batch_size, hidden=self.hidden_channels, shape=(height, width))
		self.hidden_state = h
		self.cell_state = c

	def forward(self, input):
		new_h, new_c = self.cell(input, self.hidden_state, self.cell_state)
		self.hidden_state = new_h
		self.cell_state = new_c
		return self.hidden_state


class MobileNetV1(nn.Module):
	def __init__(self, num_classes=1024, alpha=1):
		super(MobileNetV1, self).__init__()
		# upto conv 12 (reduced)
		self.model = nn.Sequential(
			conv_bn(3, 32*alpha, 2),
			conv_dw(32*alpha, 64*alpha, 1),
			conv_dw(64*alpha, 128*alpha, 2),
			conv_dw(128*alpha, 512*alpha, 2),
			)
		self._initialize_weights()

	def _initialize_weights(self):
		for m in self.modules():
			if isinstance(m, nn.Conv2d):
				nn.init.xavier_uniform_(m.weight)
				if m.bias is not None:
					m.bias.data.zero_()
			elif isinstance(m, nn.BatchNorm2d):
				m.weight.data.fill_(1)
				m.bias.data.zero_()

	def forward(self, x):
		x = self.model(x)
		return x


class SSD(nn.Module):
	def __init__(self, num_classes, batch_size, alpha=1, is_test=False, config=None, device=None):
		super(SSD, self).__init__()
		# Decoder
		self.is_test = is_test
		self.config = config
		self.num_classes = num_classes
		self.conv13 = conv_dw(512*alpha, 1024*alpha, 2) #not using conv14 as mentioned in paper
		self.bottleneck_lstm1 = BottleneckLSTM(input_channels=1024*alpha, hidden_channels=256*alpha, height=2, width=2, batch_size=batch_size)
		self.fmaps_1 = nn.Sequential(
			nn.Conv2d(in_channels=int(256*alpha), out_channels=int(128*alpha), kernel_size=1),
			nn.ReLU6(inplace=True),
			SeperableConv2d(in_channels=128*alpha, out_channels=256*alpha, kernel_size=3, stride=2, padding=1),
		)
		self.regression_headers = nn.ModuleList([
		SeperableConv2d(in_channels=512*alpha, out_channels=6 * 4, kernel_size=3, padding=1),
		SeperableConv2d(in_channels=256*alpha, out_channels=6 * 4, kernel_size=3, padding=1),
		nn.Conv2d(in_channels=int(256*alpha), out_channels=6 * 4, kernel_size=1),
		])

		self.classification_headers = nn.ModuleList([
		SeperableConv2d(in_channels=512*alpha, out_channels=6 * num_classes, kernel_size=3, padding=1),
		SeperableConv2d(in_channels=256*alpha, out_channels=6 * num_classes, kernel_size=3, padding=1),
		nn.Conv2d(in_channels=int(256*alpha), out_channels=6 * num_classes, kernel_size=1),
		])
		self._initialize_weights()

	def _initialize_weights(self):
		for m in self.modules():
			if isinstance(m, nn.Conv2d):
				nn.init.xavier_uniform_(m.weight)
				if m.bias is not None:
					m.bias.data.zero_()
			elif isinstance(m, nn.BatchNorm2d):
				m.weight.data.fill_(1)
				m.bias.data.zero_()

	def compute_header(self, i, x): #ssd method to calculate headers
		confidence = self.classification_headers[i](x)
		confidence = confidence.permute(0, 2, 3, 1).contiguous()
		confidence = confidence.view(confidence.size(0), -1, self.num_classes)

		location = self.regression_headers[i](x)
		location = location.permute(0, 2, 3, 1).contiguous()
		location = location.view(location.size(0), -1, 4)

		return confidence, location

	def forward(self, x):
		confidences = []
		locations = []
		header_index=0
		confidence, location = self.compute_header(header_index, x)
		header_index += 1
		confidences.append(confidence)
		locations.append(location)
		x = self.conv13(x)
		x = self.bottleneck_lstm1(x)
		confidence, location = self.compute_header(header_index, x)
		header_index += 1
		confidences.append(confidence)
		locations.append(location)
		x = self.fmaps_1(x)
		confidence, location = self.compute_header(header_index, x)
		header_index += 1
		confidences.append(confidence)
		locations.append(location)
		confidences = torch.cat(confidences, 1)
		locations = torch.cat(locations, 1)
		return confidences, locations


class MobileVOD(nn.Module):
	"""Module to join encoder and decoder of predictor model"""
	def __init__(self, pred_enc, pred_dec):
		super(MobileVOD, self).__init__()
		self.pred_encoder = pred_enc
		self.pred_decoder = pred_dec

	def forward(self, seq):
		x = self.pred_encoder(seq)
		confidences, locations = self.pred_decoder(x)
		return confidences , locations

	def detach_hidden(self):
		"""Detaches hidden state and cell state of all the LSTM layers from the graph"""
		self.pred_decoder.bottleneck_lstm1.hidden_state.detach_()
		self.pred_decoder.bottleneck_lstm1.cell_state.detach_()


def hard_negative_mining(loss, labels, neg_pos_ratio):
	pos_mask = labels > 0
	num_pos = pos_mask.long().sum(dim=1, keepdim=True)
	num_neg = num_pos * neg_pos_ratio

	loss[pos_mask] = -math.inf
	_, indexes = loss.sort(dim=1, descending=True)
	_, orders = indexes.sort(dim=1)
	neg_mask = orders < num_neg
	return pos_mask | neg_mask


class MultiboxLoss(nn.Module):
	def __init__(self, neg_pos_ratio):
		super(MultiboxLoss, self).__init__()
		self.neg_pos_ratio = neg_pos_ratio

	def forward(self, confidence, predicted_locations, labels, gt_locations):
		num_classes = confidence.size(2)
		with torch.no_grad():
			# derived from cross_entropy=sum(log(p))
			loss = -F.log_softmax(confidence, dim=2)[:, :, 0]
			mask = hard_negative_mining(loss, labels, self.neg_pos_ratio)

		confidence = confidence[mask, :]
		classification_loss = F.cross_entropy(confidence.reshape(-1, num_classes), labels[mask], reduction='sum')
		pos_mask = labels > 0
		predicted_locations = predicted_locations[pos_mask, :].reshape(-1, 4)
		gt_locations = gt_locations[pos_mask, :].reshape(-1, 4)
		smooth_l1_loss = F.smooth_l1_loss(predicted_locations, gt_locations, reduction='sum')
		num_pos = gt_locations.size(0)
		return smooth_l1_loss/num_pos, classification_loss/num_pos
