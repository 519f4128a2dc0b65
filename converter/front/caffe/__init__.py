"""Caffe as a converter framework: .prototxt + .caffemodel read with the project's own caffe.proto
(or the user's, --caffe_parser_path), CustomLayersMapping.xml, Python layers."""
