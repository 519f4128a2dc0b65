"""Kaldi acoustic models (nnet1, nnet2, nnet3), read without Kaldi."""
