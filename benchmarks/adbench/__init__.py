"""The ADBench suite (GMM, BA, LSTM) and the Enzyme paper's other benchmarks
(ODE, FFT, Brusselator), timed for the hand-written derivative, enzcc,
enzcc's AD-before-optimization pipeline and, when given, real Enzyme.

Entry point: ``python -m benchmarks.adbench.harness [--quick]``.
"""
