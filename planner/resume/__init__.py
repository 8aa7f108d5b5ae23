"""Resuming a job's state with a changed plan: the stateful-operator fingerprint written beside
a checkpoint (``fingerprint``), and the verdict on a new plan against it (``compatibility``)."""

from planner.resume.compatibility import Change, Verdict, compare
from planner.resume.fingerprint import JobPrint, OperatorPrint, PipelinePrint, Term, job_print

__all__ = ["Change", "JobPrint", "OperatorPrint", "PipelinePrint", "Term", "Verdict", "compare", "job_print"]
