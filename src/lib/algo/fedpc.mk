# FedPC and its baselines (added to libalgo)
