"""OpenVINO IR v10/v11: the reader (`reader`), the writer (`writer`), element types and attribute
kinds (`types`) and the one parser of IR attribute strings into an op's typed values (`attrs`).
Import the submodule you need: the reader and the parser never load the graph model (networkx),
which the writer needs."""
