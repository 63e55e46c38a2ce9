"""Core value types and helpers every stage uses: cards and seats, contract kinds and
contracts, the error family, bit helpers for the kernels, and the Numba cache guard."""
