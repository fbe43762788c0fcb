import torch

def denorm(tensor):
	return ((tensor+1.0)/2.0)*255.0

def norm(image):
	return (image/255.0-0.5)*2.0

def collapse_batch(batch):
	if len(batch.shape) == 3:
		_, _, C = batch.size()
		return batch.view(-1, C)
	elif len(batch.shape) == 5:
		_, _, C, H, W = batch.size()
		return batch.view(-1, C, H, W)
	else:
		return batch

def diverse_sampling(code, num_sample, noise_dim, gpu_id):
	N, C = code.size(0), code.size(1)
	noise = torch.FloatTensor(N, num_sample, noise_dim).uniform_().to(gpu_id)
	code = (code[:,None,:]).expand(-1,num_sample,-1)
	code = torch.cat([code, noise], dim=2)
	return code, noise

def center_sampling(code, num_sample, noise_dim, gpu_id):
	N, C = code.size(0), code.size(1)
	noise = (torch.ones(N, num_sample, noise_dim)*0.5).to(gpu_id)
	code = (code[:,None,:]).expand(-1,num_sample,-1)
	code = torch.cat([code, noise], dim=2)
	return code, noise
