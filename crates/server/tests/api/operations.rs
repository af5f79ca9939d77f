//! Black-box tests of the operations group.
