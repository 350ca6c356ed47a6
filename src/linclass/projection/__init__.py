"""Discriminative projections: Fisher's linear discriminant (fisher: the generalised eigenproblem of
the between- and within-class scatters) and its kernel form (kernel_fisher, on the kernels and
landmark selection of kernels)."""
