# task: HumanEval/0
# attack: kills itself with SIGKILL during the first call
    import os, signal
    os.kill(os.getpid(), signal.SIGKILL)
