"""enzc: reverse- and forward-mode automatic differentiation of C/C++ on optimized LLVM IR."""

__version__ = "0.1.0"
