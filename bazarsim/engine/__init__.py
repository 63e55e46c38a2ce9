"""Running a simulation: what one index range of deals computes (a pure function of the
run's parameters and the range) and the engines that run ranges and write them into a
dataset (the local engine, on this machine's cores)."""
