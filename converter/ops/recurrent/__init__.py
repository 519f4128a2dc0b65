"""Recurrent ops: RNNSequence, LSTMSequence and GRUSequence over a whole sequence."""

from converter.ops.recurrent import gru_sequence, lstm_sequence, rnn_sequence

__all__ = ["gru_sequence", "lstm_sequence", "rnn_sequence"]
