"""Generated protobuf and gRPC code for the arena.v1 protocol (see protos/)."""
