# task: HumanEval/0
# attack: writes a malformed frame (a huge length, then junk) on the channel before answering
    import os
    for fd in range(3, 10):
        try:
            os.write(fd, b'99999999999\n' + b'x' * 100)
        except OSError:
            pass
    return True
