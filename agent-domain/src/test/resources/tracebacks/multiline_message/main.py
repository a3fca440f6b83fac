def check_rows(rows):
    bad = [r for r in rows if r < 0]
    if bad:
        raise ValueError("negative rows found:\n  row 1: -1\n  row 2: -5")


check_rows([1, -1, -5])