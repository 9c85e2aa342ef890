"""AMD instruction sets: generated tables (per arch), decoder, encoder, assembler, disassembler."""
