//! Black-box tests of the planning group.
