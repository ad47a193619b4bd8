print("MatchBenchmark: the AASA matcher lands with issue 3")
