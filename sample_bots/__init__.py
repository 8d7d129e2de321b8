"""Sample bots: Python (through the SDK), Node.js and C++ (straight from the .proto)."""
