"""The command processors a driver talks to: PM4 compute queues (pm4.py), AQL queues (aql.py) and
SDMA copy queues (sdma.py), each reading its ring in GPU memory, run by the scheduler (scheduler.py)."""
