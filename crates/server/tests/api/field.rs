//! Black-box tests of the field group.
