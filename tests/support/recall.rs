//! Test helpers for the recall area.
