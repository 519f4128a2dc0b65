"""OpenVINO IR v10/v11: the reader (`reader`), the writer (`writer`) and the one parser of IR
attribute strings into an op's typed values (`attrs`). Import the submodule you need: the reader
stays free of the graph package, which the writer needs."""
