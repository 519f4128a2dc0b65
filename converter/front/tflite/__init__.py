"""TensorFlow Lite as a converter framework: .tflite flatbuffers read without TensorFlow."""
