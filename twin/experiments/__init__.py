"""Rule-change studies (issue 12): the same casino under two rulesets, replicated with common
random numbers, compared with paired confidence intervals, on Dask.

``twin compare`` is the command; :func:`twin.experiments.compare.compare` the library call.
Dask and matplotlib are imported only when a study runs or a report is drawn.
"""

from twin.experiments.arms import Arm, Focus, load_arm
from twin.experiments.compare import Failure, Plan, StudyResult, compare
from twin.experiments.replication import Observation, Task, observe, replicate
from twin.experiments.stats import Difference, paired

__all__ = [
    "Arm",
    "Difference",
    "Failure",
    "Focus",
    "Observation",
    "Plan",
    "StudyResult",
    "Task",
    "compare",
    "load_arm",
    "observe",
    "paired",
    "replicate",
]
