//! REFINE tests
