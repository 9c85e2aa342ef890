"""The pseudocode compiler: AMD's per-instruction pseudocode to executable semantics.

``pcode/`` parses the pseudocode into a typed IR and runs it with a reference evaluator.
"""
