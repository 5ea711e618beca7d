# stats: correlation, conditional-independence tests (GSL only)
