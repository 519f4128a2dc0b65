"""The NHWC -> NCHW layout change inside channels-last models (TensorFlow), as the Model
Optimizer 2022.1+ and ovc did it: layout-sensitive ops run NCHW, while the IR's inputs and outputs
keep the model's own layout (--input_shape is in that order too). --layout nhwc->nchw
(converter.front.layouts) gives an NCHW interface instead.

Design (simpler than MO's attribute permutation, same result):

1. front: a translator builds every channels-last op (Conv2D, pooling, FusedBatchNorm, ...) as
   the NCHW opset op between two Transposes marked `layout_transpose`
   (`converter.front.tf.ops._layout`). Every other op keeps TF's NHWC semantics, so the graph
   is correct as it stands. The Transposes --layout source->target adds are marked too.
2. middle (`transposes.LayoutChangeNHWCtoNCHW`, only when graph.graph['layout'] == 'NHWC', i.e.
   some op uses NHWC data; otherwise the model keeps its layout):
   - marked Transposes of one tensor with the same order merge (one after an NHWC input);
   - marked Transposes sink towards the outputs through layout-agnostic ops: unary
     elementwise ops, binary elementwise ops whose other input is transposed the same way or
     constant (the constant is permuted), Concat (axis permuted), Reduce* (axes permuted; the
     Transpose after a rank-dropping reduction shrinks or vanishes), Pad (pads permuted),
     Gather along one axis and Interpolate-11 (axes permuted); the framework's tensor names
     (and --layout rt_info) move with them;
   - two consecutive Transposes that compose to the identity cancel;
   - dead nodes are cleaned up and shapes re-inferred.
   What is left are Transposes where NHWC semantics matter: after an NHWC input, before an NHWC
   output, before the Reshape that flattens a feature map for a MatMul (MO left the same ones).
"""
