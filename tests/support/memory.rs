//! Test helpers for the memory area.
