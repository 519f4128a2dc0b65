"""Recurrent ops: RNNSequence, LSTMSequence and GRUSequence over a whole sequence, and their
one-step cells."""

from converter.ops.recurrent import cells, gru_sequence, lstm_sequence, rnn_sequence

__all__ = ["cells", "gru_sequence", "lstm_sequence", "rnn_sequence"]
