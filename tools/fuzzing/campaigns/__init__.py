"""The campaigns, by name (the order of the summary table)."""
from tools.fuzzing.campaigns import instructions, ioctls, kernels, memory, streams

CAMPAIGNS = {c.name: c for c in (instructions.CAMPAIGN, kernels.CAMPAIGN, memory.CAMPAIGN, streams.CAMPAIGN,
                                 ioctls.CAMPAIGN)}
