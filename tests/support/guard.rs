//! Test helpers for the guard area.
