"""Running and operating paperscout: the `run` process and its scheduler, `doctor`, `status`, the heartbeat,
logging that masks secrets, and progress bars.
May import anything, front ends included (the runner starts them).
"""
