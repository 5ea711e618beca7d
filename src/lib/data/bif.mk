# BIF networks: reader and forward sampler (added to libdata)
