"""The NHWC -> NCHW layout change for channels-last models (TensorFlow), as the Model Optimizer
did it: the IR's 4D/5D inputs, its layout-sensitive ops and its 4D/5D outputs are NCHW, and the
user feeds NCHW data (--input_shape is still given in the framework's NHWC order).

Design (simpler than MO's attribute permutation, same result):

1. front: a translator builds every channels-last op (Conv2D, pooling, FusedBatchNorm, ...) as
   the NCHW opset op between two Transposes marked `layout_transpose`
   (`converter.front.tf.ops._layout`). Every other op keeps TF's NHWC semantics, so the graph
   is correct as it stands.
2. middle (`transposes.LayoutChangeNHWCtoNCHW`, only when graph.graph['layout'] == 'NHWC', i.e.
   some op uses NHWC data; otherwise the model keeps its layout):
   - each 4D/5D Parameter becomes NCHW, followed by a marked NCHW->NHWC Transpose;
   - marked Transposes sink towards the outputs through layout-agnostic ops: unary
     elementwise ops, binary elementwise ops whose other input is transposed the same way or
     constant (the constant is permuted), Concat (axis permuted), Reduce* (axes permuted; the
     Transpose after a rank-dropping reduction shrinks or vanishes), Pad (pads permuted) and
     Gather along one axis;
   - two consecutive Transposes that compose to the identity cancel;
   - a marked NCHW->NHWC Transpose right before a Result is dropped (MO's NCHW outputs);
   - dead nodes are cleaned up and shapes re-inferred.
   What is left are Transposes where NHWC semantics matter, e.g. before the Reshape that
   flattens a feature map for a MatMul (MO inserted the same one).
"""
