hidden_size = 8
num_blocks = 2
num_heads = 2
dropout_rate = 0.1
hidden_act = "gelu"
