"""Generator of gpubench's ISA tables: AMD's spec JSON + YAML fix-ups -> Python modules (mako)."""
