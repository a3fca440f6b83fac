# task: HumanEval/0
# attack: returns a generator (not data); its truthiness or equality must not decide
    yield True
