"""Facts of the TensorFlow Lite schema (tensorflow/lite/schema/schema.fbs) that the reader
needs: the index of each table field used, the BuiltinOperator and TensorType enums, and the
layout of the builtin options tables the translators read."""

from __future__ import annotations

import numpy as np

__all__ = [
    "ACTIVATIONS", "BUFFER", "IDENTIFIER", "MODEL", "OPERATOR", "OPERATOR_CODE", "OPTIONS",
    "QUANTIZATION", "SUBGRAPH", "TENSOR", "TENSOR_TYPES", "builtin_name",
]

IDENTIFIER = b"TFL3"

# field indices of the tables read (a union takes two: its type, then its value)
MODEL = {"version": 0, "operator_codes": 1, "subgraphs": 2, "buffers": 4}
SUBGRAPH = {"tensors": 0, "inputs": 1, "outputs": 2, "operators": 3, "name": 4}
TENSOR = {"shape": 0, "type": 1, "buffer": 2, "name": 3, "quantization": 4, "sparsity": 6,
          "shape_signature": 7}
QUANTIZATION = {"scale": 2, "zero_point": 3, "quantized_dimension": 6}
OPERATOR = {"opcode_index": 0, "inputs": 1, "outputs": 2, "builtin_options": 3,
            "custom_options": 5, "builtin_options_2": 11}
OPERATOR_CODE = {"deprecated_builtin_code": 0, "custom_code": 1, "version": 2,
                 "builtin_code": 3}
BUFFER = {"data": 0, "offset": 1, "size": 2}

# TensorType -> numpy dtype (None: a type the converter does not read)
TENSOR_TYPES = {
    0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 5: None, 6: np.bool_,
    7: np.int16, 8: np.complex64, 9: np.int8, 10: np.float64, 11: np.complex128, 12: np.uint64,
    13: None, 14: None, 15: np.uint32, 16: np.uint16,
}
ACTIVATIONS = {0: None, 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}

# BuiltinOperator, in enum order (value = index)
_BUILTINS = """
    ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE
    EMBEDDING_LOOKUP FLOOR FULLY_CONNECTED HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D
    LOCAL_RESPONSE_NORMALIZATION LOGISTIC LSH_PROJECTION LSTM MAX_POOL_2D MUL RELU
    RELU_N1_TO_1 RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX SPACE_TO_DEPTH SVDF TANH
    CONCAT_EMBEDDINGS SKIP_GRAM CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD
    UNIDIRECTIONAL_SEQUENCE_RNN GATHER BATCH_TO_SPACE_ND SPACE_TO_BATCH_ND TRANSPOSE MEAN SUB
    DIV SQUEEZE UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE BIDIRECTIONAL_SEQUENCE_RNN EXP
    TOPK_V2 SPLIT LOG_SOFTMAX DELEGATE BIDIRECTIONAL_SEQUENCE_LSTM CAST PRELU MAXIMUM ARG_MAX
    MINIMUM LESS NEG PADV2 GREATER GREATER_EQUAL LESS_EQUAL SELECT SLICE SIN TRANSPOSE_CONV
    SPARSE_TO_DENSE TILE EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT RSQRT SHAPE POW ARG_MIN
    FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK LOGICAL_OR ONE_HOT LOGICAL_AND LOGICAL_NOT UNPACK
    REDUCE_MIN FLOOR_DIV REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD RANGE
    RESIZE_NEAREST_NEIGHBOR LEAKY_RELU SQUARED_DIFFERENCE MIRROR_PAD ABS SPLIT_V UNIQUE CEIL
    REVERSE_V2 ADD_N GATHER_ND COS WHERE RANK ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE
    MATRIX_SET_DIAG ROUND HARD_SWISH IF WHILE NON_MAX_SUPPRESSION_V4 NON_MAX_SUPPRESSION_V5
    SCATTER_ND SELECT_V2 DENSIFY SEGMENT_SUM BATCH_MATMUL PLACEHOLDER_FOR_GREATER_OP_CODES
    CUMSUM CALL_ONCE BROADCAST_TO RFFT2D CONV_3D IMAG REAL COMPLEX_ABS HASHTABLE
    HASHTABLE_FIND HASHTABLE_IMPORT HASHTABLE_SIZE REDUCE_ALL CONV_3D_TRANSPOSE VAR_HANDLE
    READ_VARIABLE ASSIGN_VARIABLE BROADCAST_ARGS RANDOM_STANDARD_NORMAL BUCKETIZE
    RANDOM_UNIFORM MULTINOMIAL GELU DYNAMIC_UPDATE_SLICE RELU_0_TO_1 UNSORTED_SEGMENT_PROD
    UNSORTED_SEGMENT_MAX UNSORTED_SEGMENT_SUM ATAN2 UNSORTED_SEGMENT_MIN SIGN BITCAST
    BITWISE_XOR RIGHT_SHIFT STABLEHLO_LOGISTIC STABLEHLO_ADD STABLEHLO_DIVIDE
    STABLEHLO_MULTIPLY STABLEHLO_MAXIMUM STABLEHLO_RESHAPE STABLEHLO_CLAMP
    STABLEHLO_CONCATENATE STABLEHLO_BROADCAST_IN_DIM STABLEHLO_CONVOLUTION STABLEHLO_SLICE
    STABLEHLO_CUSTOM_CALL STABLEHLO_REDUCE STABLEHLO_ABS STABLEHLO_AND STABLEHLO_COSINE
    STABLEHLO_EXPONENTIAL STABLEHLO_FLOOR STABLEHLO_LOG STABLEHLO_MINIMUM STABLEHLO_NEGATE
    STABLEHLO_OR STABLEHLO_POWER STABLEHLO_REMAINDER STABLEHLO_RSQRT STABLEHLO_SELECT
    STABLEHLO_SUBTRACT STABLEHLO_TANH STABLEHLO_SCATTER STABLEHLO_COMPARE STABLEHLO_CONVERT
    STABLEHLO_DYNAMIC_SLICE STABLEHLO_DYNAMIC_UPDATE_SLICE STABLEHLO_PAD STABLEHLO_IOTA
    STABLEHLO_DOT_GENERAL STABLEHLO_REDUCE_WINDOW STABLEHLO_SORT STABLEHLO_WHILE
    STABLEHLO_GATHER STABLEHLO_TRANSPOSE DILATE STABLEHLO_RNG_BIT_GENERATOR REDUCE_WINDOW
    STABLEHLO_COMPOSITE STABLEHLO_SHIFT_LEFT STABLEHLO_CBRT STABLEHLO_CASE
""".split()


def builtin_name(code: int) -> str:
    """The BuiltinOperator's name for code ('BUILTIN_<code>' for one newer than this table)."""
    return _BUILTINS[code] if 0 <= code < len(_BUILTINS) else f"BUILTIN_{code}"


# builtin options: the BuiltinOptions union's type -> the table's fields in order, each as
# (name, struct format or "[i]" for an int vector, the schema's default); None: a field not read
_CONV = [("padding", "b", 0), ("stride_w", "i", 0), ("stride_h", "i", 0),
         ("fused_activation_function", "b", 0), ("dilation_w_factor", "i", 1),
         ("dilation_h_factor", "i", 1)]
_ACTIVATION = [("fused_activation_function", "b", 0)]
_RESIZE = [("align_corners", "?", False), ("half_pixel_centers", "?", False)]
OPTIONS: dict[int, list] = {
    1: _CONV,
    2: [("padding", "b", 0), ("stride_w", "i", 0), ("stride_h", "i", 0),
        ("depth_multiplier", "i", 0), ("fused_activation_function", "b", 0),
        ("dilation_w_factor", "i", 1), ("dilation_h_factor", "i", 1)],
    5: [("padding", "b", 0), ("stride_w", "i", 0), ("stride_h", "i", 0),
        ("filter_width", "i", 0), ("filter_height", "i", 0),
        ("fused_activation_function", "b", 0)],
    8: [("fused_activation_function", "b", 0), ("weights_format", "b", 0),
        ("keep_num_dims", "?", False)],
    9: [("beta", "f", 0.0)],
    10: [("axis", "i", 0), ("fused_activation_function", "b", 0)],
    11: _ACTIVATION, 21: _ACTIVATION, 28: _ACTIVATION, 29: _ACTIVATION,
    15: [None, None, *_RESIZE],
    17: [("new_shape", "[i]", None)],
    19: [("block_size", "i", 0)], 94: [("block_size", "i", 0)],
    23: [("axis", "i", 0), ("batch_dims", "i", 0)],
    27: [("keep_dims", "?", False)],
    30: [("squeeze_dims", "[i]", None)],
    32: [("begin_mask", "i", 0), ("end_mask", "i", 0), ("ellipsis_mask", "i", 0),
         ("new_axis_mask", "i", 0), ("shrink_axis_mask", "i", 0), ("offset", "?", False)],
    35: [("num_splits", "i", 0)], 79: [("num_splits", "i", 0)],
    49: [("padding", "b", 0), ("stride_w", "i", 0), ("stride_h", "i", 0),
         ("fused_activation_function", "b", 0)],
    59: [None, ("axis", "i", 0)],
    64: [None, ("axis", "i", 0)],
    74: _RESIZE,
    75: [("alpha", "f", 0.0)],
    77: [("mode", "b", 0)],
    101: [("adj_x", "?", False), ("adj_y", "?", False)],
    116: [("approximate", "?", False)],
}
