"""The local web app for coaches (``bazarsim serve``): hand analysis, a study browser and a
deal replay, each question answered by a worker process of a pool."""
