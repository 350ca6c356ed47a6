"""The perceptron: its learning rule (rule), its epochs and stopping rules (training), and the fixed
basis functions it can learn on (basis_functions)."""
